#include "core/recording/progress_line.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace sawtooth::recording {
namespace {

using nlohmann::json;

// "prefix: rest" -> "rest"
std::string_view withoutLeading(std::string_view text, std::string_view prefix) {
  if (prefix.empty() || !text.starts_with(prefix)) return text;
  std::string_view rest = text.substr(prefix.size());
  if (!rest.starts_with(":")) return text;
  rest.remove_prefix(1);
  while (rest.starts_with(" ")) rest.remove_prefix(1);
  return rest;
}

}  // namespace

std::string formatProgressLine(const ProgressLine& line) {
  json j = {{"stage", line.stage}, {"run", line.run}, {"step", line.step}, {"steps", line.steps},
            {"fraction", std::clamp(line.fraction.value_or(0.0), 0.0, 1.0)}, {"message", line.message}};
  if (line.rank) j["rank"] = *line.rank;
  if (!line.kind.empty()) j["kind"] = line.kind;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string formatStageLine(std::string_view stage, std::string_view message, std::string_view extra_json) {
  json j = extra_json.empty() ? json::object() : json::parse(extra_json.begin(), extra_json.end(), nullptr, false);
  if (!j.is_object()) j = json::object();
  j["stage"] = stage;
  j["message"] = message;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<ProgressLine> parseProgressLine(std::string_view text) {
  if (text.size() > kMaxProgressLineBytes) return Error{fmt::format("a progress line of {} bytes", text.size())};
  const json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{"not a progress line (not a JSON object)"};
  auto text_of = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  ProgressLine line;
  line.stage = text_of("stage");
  if (line.stage.empty()) return Error{"not a progress line (no stage)"};
  line.run = text_of("run");
  line.message = text_of("message");
  line.kind = text_of("kind");
  if (auto it = j.find("step"); it != j.end() && it->is_number_integer()) line.step = it->get<int64_t>();
  if (auto it = j.find("steps"); it != j.end() && it->is_number_integer()) line.steps = it->get<int64_t>();
  if (auto it = j.find("fraction"); it != j.end() && it->is_number()) line.fraction = std::clamp(it->get<double>(), 0.0, 1.0);
  if (auto it = j.find("rank"); it != j.end() && it->is_number_integer()) line.rank = it->get<int>();
  if (auto it = j.find("pid"); it != j.end() && it->is_number_integer()) line.pid = it->get<int>();
  if (line.stage == stage::kRecording) line.file = text_of("path");
  if (line.stage == stage::kRankStarted) line.file = text_of("out");
  return line;
}

std::string describeProgress(const ProgressLine& line) {
  std::string_view message = line.message;
  std::string rank;
  if (line.rank) {
    rank = fmt::format("rank {}", *line.rank);
    message = withoutLeading(message, rank);
  }
  message = withoutLeading(message, line.run);
  std::string out = rank;
  if (!line.run.empty()) out += (out.empty() ? "" : " · ") + line.run;
  if (!message.empty()) out += (out.empty() ? "" : ": ") + std::string(message);
  return out;
}

}  // namespace sawtooth::recording
