#pragma once
// Two traces' summaries read as one (a comparison's timelines drawn over each other when either
// trace is read on demand, issue 25): what the merge of two traces (core/model/trace_merge.h)
// gives a trace in memory, without reading either's events. A's devices, events and times are as
// they are; B's devices are offset by kCompareOffset, its events follow A's (seq + A's count) and
// its times pass through the alignment's warp (identity unless aligned by step). Phases are named
// "A: …" / "B: …".
//
// It serves the timeline (timeline_model.h, timeline_frame.h): series, axes, nodes, events,
// allocator events, phases and spans. A moment, a module call or a phase name is read from the
// trace's own tab: those ask for an error.

#include <memory>

#include "core/analysis/step_alignment.h"
#include "core/analysis/summary_source.h"

namespace sawtooth::summary {

class OverlaySource : public SummarySource {
 public:
  // `a` must be complete (a finished trace): B's events are numbered after A's count.
  static Result<std::unique_ptr<OverlaySource>> make(std::shared_ptr<SummarySource> a, std::shared_ptr<SummarySource> b,
                                                     StepWarp b_time = {});

  Result<std::vector<SeriesRow>> seriesRows() override;
  Result<std::vector<AxisRow>> axisRows() override;
  Status nodes(DeviceId device, int series, int level, int64_t first, int64_t last,
               std::vector<std::pair<int64_t, NodeValues>>& out) override;
  Status axisNodes(DeviceId device, int axis, int level, int64_t first, int64_t last,
                   std::vector<std::pair<int64_t, AxisNode>>& out) override;
  Status events(uint64_t first, uint64_t last, std::optional<DeviceId> device, std::optional<Source> source,
                std::vector<EventRow>& out) override;
  Status allocatorEvents(std::optional<DeviceId> device, uint64_t first, uint64_t last,
                         std::vector<AllocatorRow>& out) override;
  Status phases(int64_t t0, int64_t t1, size_t max, std::vector<Phase>& out) override;
  Status spans(DeviceId device, SpanKind kind, int64_t t0, int64_t t1, std::vector<SpanRow>& out) override;
  Result<std::optional<Checkpoint>> checkpointAtOrBefore(DeviceId device, int64_t position) override;
  Result<bool> segmentStoredAtOrBefore(DeviceId device, int64_t position) override;
  Result<uint64_t> eventCount() override;
  Status moduleCalls(int64_t t0, int64_t t1, size_t max, std::vector<ModuleCall>& out) override;
  Result<std::optional<std::string>> phaseName(uint32_t id) override;
  Result<std::optional<Ooms>> ooms(size_t max) override;
  Result<std::optional<std::vector<CategoryPeaksRow>>> categoryPeaks() override;

 private:
  OverlaySource(std::shared_ptr<SummarySource> a, std::shared_ptr<SummarySource> b, StepWarp b_time, uint64_t a_events)
      : a_(std::move(a)), b_(std::move(b)), warp_(std::move(b_time)), a_events_(a_events) {}
  static bool isB(DeviceId device);
  SummarySource& sideOf(DeviceId device) { return isB(device) ? *b_ : *a_; }
  static DeviceId own(DeviceId device);
  // A window on the overlay's clock as B's: widened by a nanosecond each way for the warp's rounding.
  std::pair<int64_t, int64_t> bWindow(int64_t t0, int64_t t1) const;

  std::shared_ptr<SummarySource> a_, b_;
  StepWarp warp_;
  uint64_t a_events_ = 0;
  std::vector<EventRow> b_events_;         // scratch
  std::vector<AllocatorRow> b_allocator_;  // scratch
};

}  // namespace sawtooth::summary
