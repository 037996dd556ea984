#pragma once
// One moment of a trace too large to read whole (issue 25): the allocator's state and the
// allocations alive after one allocator event of a device, from the summaries' nearest stored
// allocator state (every summary::kCheckpointInterval allocator events) and the events after it —
// a bounded replay whatever the trace's length — and each live block's category, module and pass
// read from its allocation event. The segment map, the live bytes by call site and the bytes by
// module then come from it as from a trace in memory (segmentMapOf, liveBytesOf, moduleMemoryOf),
// to the byte the same.
//
// A device the summaries hold no states for (a trace that began mid-run with no allocator state
// to start from) has no segment map; its live allocations come from one pass over its allocator
// events up to the moment (memory bounded by what is alive, time by the moment's position).

#include <cstdint>
#include <optional>

#include "core/analysis/live_allocations.h"
#include "core/analysis/live_bytes.h"
#include "core/analysis/module_table.h"
#include "core/analysis/segment_map.h"
#include "core/analysis/timeline_model.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct SummaryMoment {
  DeviceId device = 0;
  int64_t position = -1;     // after this allocator event of the device (-1: before the first)
  int64_t device_events = 0;  // the device's allocator events
  bool at_peak = false;
  std::optional<Event> event;          // the event at `position`
  std::optional<AllocatorState> state;  // empty: no segment map (why_no_state says why)
  std::string why_no_state;
  LiveSet live;
  MomentContext context;  // the event's pass, phase and module
  int64_t replayed = 0;   // events read after the stored state (or from the start without one)
};

// `tables` is the trace without its events (EventPages::tables(): stacks, modules, devices,
// allocator settings); `position` empty: the device's peak of allocated bytes (clamped otherwise).
// `state_only`: the segment map alone is wanted (a device without stored states then reads nothing
// and has neither; its live allocations are left empty).
Result<SummaryMoment> momentFromSummaries(TimelineModel& model, const Trace& tables, DeviceId device,
                                          std::optional<int64_t> position, Progress* progress = nullptr,
                                          bool state_only = false);

// What each (stack, category, module) of the device allocated over the whole trace, as
// allocatedTotals counts it in memory: one pass over every event (progress, cancellation), memory
// bounded by the distinct sites.
Result<std::vector<AllocatedTotal>> allocatedTotalsFromSummaries(summary::SummarySource& source, DeviceId device,
                                                                  Progress* progress = nullptr);

LiveBytes liveBytesOf(const Trace& tables, const SummaryMoment& moment);
ModulesAt modulesOf(const Trace& tables, const SummaryMoment& moment);
// Empty without a state (moment.why_no_state says why, in words).
std::optional<SegmentMap> segmentMapOf(const Trace& tables, const SummaryMoment& moment);

}  // namespace sawtooth
