#include "app/sawtooth-record/capture_options.h"

#include <sstream>

#include <fmt/format.h>

#include "core/recording/capture_window_spec.h"

namespace sawtooth::record {

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

Status applySampleInterval(int64_t milliseconds, capture::SessionOptions& options) {
  if (Status st = recording::checkSampleInterval(milliseconds); !st) return st;
  options.sample_interval_ms = static_cast<int>(milliseconds);
  return Ok{};
}

}  // namespace sawtooth::record
