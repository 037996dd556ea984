#include "app/sawtooth-record/progress_json.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace sawtooth::record {

void JsonLinesProgress::report(const std::string& stage, const std::string& run, int64_t step, int64_t steps,
                               double fraction, const std::string& message) {
  nlohmann::json j = {{"stage", stage}, {"run", run},          {"step", step},
                      {"steps", steps}, {"fraction", std::clamp(fraction, 0.0, 1.0)}, {"message", message}};
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(out_, "%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(out_);
}

void JsonLinesProgress::event(const std::string& stage, const std::string& message, const std::string& extra_json) {
  nlohmann::json j = nlohmann::json::parse(extra_json, nullptr, false);
  if (!j.is_object()) j = nlohmann::json::object();
  j["stage"] = stage;
  j["message"] = message;
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(out_, "%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(out_);
}

}  // namespace sawtooth::record
