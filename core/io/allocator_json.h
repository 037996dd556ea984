#pragma once
// The JSON documents of `sawtooth-trace segments` and `sawtooth-trace diff` (see README).

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/allocator_history.h"
#include "core/analysis/oom_explanation.h"
#include "core/analysis/trace_diff.h"

namespace sawtooth {

// One device's allocator state for `segments`: the state, the replay's report, and the
// out-of-memory explanation when the state is at an OOM event.
struct SegmentsEntry {
  AllocatorState state;
  const ReplayReport* report = nullptr;
  size_t device_events = 0;
  std::optional<OomExplanation> oom;
  std::string error;  // the device could not be replayed (state and report unused)
};

std::string segmentsJson(const Trace& trace, const std::string& file, const std::vector<SegmentsEntry>& devices,
                         int indent = 2);
std::string segmentsText(const Trace& trace, const std::vector<SegmentsEntry>& devices);

std::string diffJson(const TraceDiff& diff, int indent = 2);
std::string diffText(const TraceDiff& diff, size_t max_rows = 30);

}  // namespace sawtooth
