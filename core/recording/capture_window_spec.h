#pragma once
// The capture-window options of a recording as text, checked once for both sides of the
// recorder↔app contract: sawtooth-record parses its command line with these, and the app's
// workload form validates its fields with the same rules before it starts a recording.
//   --steps A:B          steps A to B-1 (counted from 0); A: or :B open-ended
//   --window-events N    keep only the last N events (1 or more)
//   --sample-interval MS device samples every MS milliseconds (0: at phase boundaries only)
// Each error names the option and says what would be accepted.

#include <cstdint>
#include <limits>
#include <string_view>

#include "core/util/result.h"

namespace sawtooth::recording {

struct StepRange {
  int64_t first = 0;
  int64_t end = std::numeric_limits<int64_t>::max();  // exclusive
};

inline constexpr int kDefaultSampleIntervalMs = 50;
inline constexpr int64_t kMaxSampleIntervalMs = 3'600'000;

Result<StepRange> parseStepRange(std::string_view text);
Status checkWindowEvents(int64_t events);
Status checkSampleInterval(int64_t milliseconds);

}  // namespace sawtooth::recording
