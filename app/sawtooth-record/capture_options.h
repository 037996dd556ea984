#pragma once
// The recorder's capture options, from their command-line text into SessionOptions:
//   --capture all|none|all,-tracker,-reporter,-cupti,-kernels,-sampler
//   --steps A:B, --window-events N: capture::applyStepRange / applyWindowEvents (capture_window.h)
//   --sample-interval MS (device samples every MS milliseconds; 0: at phase boundaries only)
// Each error names the option and what would be accepted.

#include <cstdint>
#include <string>

#include "core/util/result.h"
#include "capture/torch/capture_session.h"

namespace sawtooth::record {

Status applyCaptureSpec(const std::string& spec, capture::SessionOptions& options);
Status applySampleInterval(int64_t milliseconds, capture::SessionOptions& options);

}  // namespace sawtooth::record
