#pragma once
// A .sawtooth file's timeline read from its summaries (core/analysis/timeline_model.h over
// core/io/native_summary_source.h), held open by a tab for as long as it shows it: the overview
// when the file opens (and again each time a recording grows), a frame for each window the chart
// asks for. Jobs on any thread share it; one query runs at a time (the model and its SQLite
// connections are not for concurrent use). The events table is not read to open it: only the
// summaries and, at event-level zoom, the visible window's events.

#include <cstdint>
#include <memory>
#include <atomic>
#include <mutex>
#include <optional>
#include <string>

#include "core/analysis/fragmentation_frame.h"
#include "core/analysis/summary_module_costs.h"
#include "core/analysis/summary_moment.h"
#include "core/analysis/summary_report.h"
#include "core/analysis/timeline_frame.h"
#include "core/io/summary_cache.h"
#include "core/io/read_limits.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth::native {
class FileSummarySource;
}

namespace sawtooth::app {

class SummaryTimeline {
 public:
  ~SummaryTimeline();

  // The file's summaries when it holds them whole (or the cache has them), opened. Nothing when
  // they would have to be built from its events first (a file of format 1 or 2, summaries that do
  // not cover its events) unless `build` is true: then they are built into the user's cache (one
  // pass over the events, memory bounded by the summaries) with progress.
  static Result<std::shared_ptr<SummaryTimeline>> open(const std::string& path, const ReadLimits& limits, bool build,
                                                       Progress& progress);
  // A recording being written: its summaries as the writer has committed them (no check against
  // its events, which run ahead between commits); refresh() as it grows.
  static Result<std::shared_ptr<SummaryTimeline>> openGrowing(const std::string& path, const ReadLimits& limits);

  // Re-reads how far each series goes (a growing recording) and makes the overview.
  Result<TimelineOverview> refresh();
  Result<TimelineFrame> frame(const TimelineRequest& request);
  // The fragmentation chart of a device (core/analysis/fragmentation_frame.h), on a connection of
  // its own (at event level a window replays the allocator from the file's events, which the
  // timeline's frames of the same zoom must not wait for): its extent (nothing: the summaries keep
  // no fragmentation for it), a window's lines (exact at event level given the tables:
  // core/analysis/fragmentation_frame.h), and the allocator event a click at x names.
  Result<std::optional<FragmentationExtent>> fragmentationExtent(DeviceId device);
  Result<FragmentationFrame> fragmentation(const FragmentationRequest& request, const Trace* tables);
  Result<int64_t> fragmentationPositionAt(DeviceId device, double x, bool by_time);
  // One moment of a device (core/analysis/summary_moment.h), replayed on a connection of its own so
  // that the timeline's frames never wait for it; `tables` names what the events point to.
  Result<SummaryMoment> moment(const Trace& tables, DeviceId device, std::optional<int64_t> position, Progress& progress);
  // The moment's bytes by module with each module's costs over the moment's step
  // (core/analysis/summary_module_costs.h), on the moments' connection; the last step's costs are
  // kept, so scrubbing within a step reads them once.
  Result<ModulesAt> modules(const Trace& tables, const SummaryMoment& moment, Progress& progress);
  // What each site of the device allocated over the whole file: one pass over its events, on a
  // connection of its own (frames and moments go on meanwhile).
  Result<std::vector<AllocatedTotal>> allocatedTotals(DeviceId device, Progress& progress);
  // The plan rows and the first out-of-memory's post-mortem (core/analysis/summary_report.h) added
  // to `report`: one pass over the events and the failure's moment, on a connection of its own.
  Status addWholeTraceFigures(const Trace& tables, TraceReport& report, Progress& progress);
  // The first out-of-memory's post-mortem from the summaries' index alone (no pass over the events)
  // added to `report`; false when the summaries keep no index (the pass finds it then).
  Result<bool> addIndexedOom(const Trace& tables, TraceReport& report, Progress& progress);
  // The summaries on a connection of their own (a comparison's overlay reads them beside the tab).
  Result<std::shared_ptr<native::FileSummarySource>> openSource() const;
  // Events the summaries cover.
  uint64_t events() const { return events_.load(); }
  // Why the summaries come from the cache (empty when from the file itself).
  const std::string& cachedBecause() const { return why_cached_; }

 private:
  SummaryTimeline() = default;
  std::mutex mutex_;
  std::shared_ptr<native::FileSummarySource> source_;
  std::unique_ptr<TimelineModel> model_;
  SummaryPlace place_;
  ReadLimits limits_;
  std::mutex moment_mutex_;
  std::shared_ptr<native::FileSummarySource> moment_source_;  // opened at the first moment
  std::unique_ptr<TimelineModel> moment_model_;
  StepCosts step_costs_;  // the last step's, under moment_mutex_
  std::mutex fragmentation_mutex_;
  std::shared_ptr<native::FileSummarySource> fragmentation_source_;  // opened at the first request
  std::unique_ptr<TimelineModel> fragmentation_model_;
  uint64_t fragmentation_events_ = 0;  // events_ when fragmentation_model_ was last refreshed
  // Under fragmentation_mutex_: the fragmentation's model, refreshed when the timeline's has grown.
  Result<TimelineModel*> fragmentationModel();
  std::atomic<uint64_t> events_ = 0;
  std::string why_cached_;
};

// What the app keeps in memory for a file it reads whole (the trace and its analysis), from the
// file's size: about 2.7 bytes a byte of a .sawtooth file (measured: a 1.0 GB file of 20 M events
// took 2.7 GB; bench/results/cpu-any-length-2026-12-02.md).
uint64_t estimatedMemoryToReadWhole(uint64_t file_bytes);

}  // namespace sawtooth::app
