#include "app/sawtooth-record/capture_options.h"

#include <charconv>
#include <sstream>

#include <fmt/format.h>

namespace sawtooth::record {
namespace {

bool parseStep(std::string_view text, int64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

}  // namespace

Status applyCaptureSpec(const std::string& spec, capture::SessionOptions& o) {
  if (spec == "none") {
    o.allocator_tracker = o.memory_reporter = o.cupti = o.cupti_kernels = o.sampler = false;
    return Ok{};
  }
  std::stringstream parts(spec);
  std::string part;
  bool first = true;
  while (std::getline(parts, part, ',')) {
    if (first && part == "all") {
      first = false;
      continue;
    }
    first = false;
    if (part == "-tracker") o.allocator_tracker = false;
    else if (part == "-reporter") o.memory_reporter = false;
    else if (part == "-cupti") o.cupti = false;
    else if (part == "-kernels") o.cupti_kernels = false;
    else if (part == "-sampler") o.sampler = false;
    else
      return Error{fmt::format("--capture {}: '{}' is not one of all, none, -tracker, -reporter, -cupti, -kernels, "
                               "-sampler",
                               spec, part)};
  }
  return Ok{};
}

Status applyStepRange(const std::string& range, capture::WindowOptions& window) {
  const auto colon = range.find(':');
  const auto bad = [&](const char* why) {
    return Error{fmt::format("--steps {}: {}; expected A:B (steps A to B-1, counted from 0), A: or :B", range, why)};
  };
  if (colon == std::string::npos) return bad("no ':'");
  const std::string_view a = std::string_view(range).substr(0, colon), b = std::string_view(range).substr(colon + 1);
  int64_t first = 0, end = INT64_MAX;
  if (!a.empty() && !parseStep(a, first)) return bad("A is not a step number (0 or more)");
  if (!b.empty() && !parseStep(b, end)) return bad("B is not a step number (0 or more)");
  if (end <= first) return bad("B must be above A");
  window.first_step = first;
  window.end_step = end;
  return Ok{};
}

Status applyWindowEvents(int64_t events, capture::WindowOptions& window) {
  if (events < 1) return Error{fmt::format("--window-events {}: expected a number of events, 1 or more", events)};
  window.last_events = static_cast<uint64_t>(events);
  return Ok{};
}

Status applySampleInterval(int64_t milliseconds, capture::SessionOptions& options) {
  if (milliseconds < 0 || milliseconds > 3'600'000)
    return Error{fmt::format("--sample-interval {}: expected milliseconds from 0 (phase boundaries only) to 3600000",
                             milliseconds)};
  options.sample_interval_ms = static_cast<int>(milliseconds);
  return Ok{};
}

}  // namespace sawtooth::record
