#pragma once
// What the timeline's hover says about an event: the event itself, where it sits on its device's
// index axis, the allocated and reserved bytes right after it, its category, phase and run, the
// module and pass that made it (where the trace records modules), and the frames worth reading
// first (core/analysis/frame_filter.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/trace_analysis.h"

namespace sawtooth {

struct EventDetails {
  Event event;
  std::string device;                     // "cuda:0", or its label
  std::optional<int64_t> index;           // the allocator-event index, for allocator events
  std::optional<int64_t> allocated_after, reserved_after;
  std::string category;                   // empty when unknown
  std::string phase;
  std::string run;
  // Where in the model: the module's full name ("Net.layers.3.mlp", or "(outside modules)") and
  // the pass that made the event; both empty in a trace that records no modules.
  std::string module;
  std::string pass;
  std::vector<Frame> frames;              // the interesting ones, at most max_frames
};

// `point`: the event's position on its device's allocator axis when the caller already has it
// (the hover found it), saving a search. Nothing for an event that is not in the trace.
std::optional<EventDetails> eventDetails(const TraceAnalysis& analysis, uint64_t event,
                                         std::optional<size_t> point = std::nullopt, size_t max_frames = 5);

}  // namespace sawtooth
