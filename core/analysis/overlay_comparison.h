#pragma once
// Two traces' timelines over each other when either is read on demand (issue 25): the comparison
// (comparison.h) of a file of any length, drawn from both traces' summaries through one
// OverlaySource (overlay_source.h) and one TimelineModel, so that the chart asks for frames as it
// does for one file read on demand. Its differences table is the one compareTraces makes; its
// frames are those of the two traces merged (tested line by line).

#include <memory>
#include <optional>
#include <string>

#include "core/analysis/comparison.h"
#include "core/analysis/overlay_source.h"
#include "core/analysis/timeline_frame.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct OverlaySide {
  std::shared_ptr<summary::SummarySource> source;  // the trace's summaries (a file's, or MemorySource)
  std::shared_ptr<const Trace> tables;             // its devices and runs (no events needed)
  std::string name;
  // Where its steps begin, when known without the summaries (a trace read whole); otherwise the
  // summaries' steps of its device with the most allocator events are read.
  std::optional<StepStarts> steps;
};

struct OverlayComparison {
  Alignment alignment = Alignment::EventIndex;
  bool by_time = false;
  std::shared_ptr<TimelineModel> model;  // over the overlay: not for concurrent use
  TimelineOverview overview;              // devices named "A cuda:0" / "B cuda:0"
  Table differences;
  std::string note;
};

Result<OverlayComparison> overlayTraces(const OverlaySide& a, const OverlaySide& b, Alignment alignment,
                                        Progress* progress = nullptr);

// A side's step starts from its summaries: the steps of its device with the most allocator
// events (at most 4 M of them), read a stretch of time at a time.
Result<StepStarts> stepStartsFromSummaries(TimelineModel& model, Progress* progress = nullptr);

}  // namespace sawtooth
