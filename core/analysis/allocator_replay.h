#pragma once
// What a trace's allocator views start from, computed once per trace off the GUI thread: the
// replay of the device with the largest peak (with its checkpoints, so that the segment map at any
// event is rebuilt from the nearest one), its fragmentation series, and the event the segment map
// opens at (the first out-of-memory event, else the peak).

#include <cstdint>
#include <memory>

#include "core/analysis/allocator_history.h"
#include "core/analysis/fragmentation_series.h"
#include "core/analysis/trace_analysis.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct AllocatorReplay {
  std::shared_ptr<const AllocatorHistory> history;
  std::shared_ptr<const FragmentationSeries> fragmentation;
  int64_t open_at = -1;  // an allocator-event position
};

// The device whose allocated bytes peak highest (the one a user asks about first); 0 with no device.
DeviceId largestPeakDevice(const Trace& trace);
// The same from an analysis' peaks, without a pass over the events (for the GUI thread).
DeviceId largestPeakDevice(const TraceAnalysis& analysis);

Result<AllocatorReplay> replayAllocator(std::shared_ptr<const Trace> trace, DeviceId device, Progress* progress = nullptr);

// The allocator-event position in force at the trace's event `event`: the last allocator event of
// the history's device at or before it (-1: before the first).
int64_t allocatorPositionAt(const AllocatorHistory& history, uint64_t event);

}  // namespace sawtooth
