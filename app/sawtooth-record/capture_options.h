#pragma once
// The recorder's capture options, from their command-line text into SessionOptions:
//   --capture all|none|all,-tracker,-reporter,-cupti,-kernels,-sampler
//   --steps A:B (record from the start of step A to the start of step B; A: or :B open-ended)
//   --window-events N (keep the last N events)
//   --sample-interval MS (device samples every MS milliseconds; 0: at phase boundaries only)
// Each error names the option and what would be accepted.

#include <cstdint>
#include <string>

#include "core/util/result.h"
#include "workloads/capture/capture_session.h"

namespace sawtooth::record {

Status applyCaptureSpec(const std::string& spec, capture::SessionOptions& options);
Status applyStepRange(const std::string& range, capture::WindowOptions& window);
Status applyWindowEvents(int64_t events, capture::WindowOptions& window);
Status applySampleInterval(int64_t milliseconds, capture::SessionOptions& options);

}  // namespace sawtooth::record
