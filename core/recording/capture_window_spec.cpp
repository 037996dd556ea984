#include "core/recording/capture_window_spec.h"

#include <charconv>
#include <string>

#include <fmt/format.h>

namespace sawtooth::recording {
namespace {

bool parseStep(std::string_view text, int64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

}  // namespace

Result<StepRange> parseStepRange(std::string_view text) {
  const auto bad = [&](const char* why) {
    return Error{fmt::format("--steps {}: {}; expected A:B (steps A to B-1, counted from 0), A: or :B", text, why)};
  };
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return bad("no ':'");
  const std::string_view a = text.substr(0, colon), b = text.substr(colon + 1);
  StepRange range;
  if (!a.empty() && !parseStep(a, range.first)) return bad("A is not a step number (0 or more)");
  if (!b.empty() && !parseStep(b, range.end)) return bad("B is not a step number (0 or more)");
  if (range.end <= range.first) return bad("B must be above A");
  return range;
}

Status checkWindowEvents(int64_t events) {
  if (events < 1) return Error{fmt::format("--window-events {}: expected a number of events, 1 or more", events)};
  return Ok{};
}

Status checkSampleInterval(int64_t milliseconds) {
  if (milliseconds < 0 || milliseconds > kMaxSampleIntervalMs)
    return Error{fmt::format("--sample-interval {}: expected milliseconds from 0 (phase boundaries only) to {}",
                             milliseconds, kMaxSampleIntervalMs)};
  return Ok{};
}

}  // namespace sawtooth::recording
