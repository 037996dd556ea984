#pragma once
// A comparison's two timelines drawn over each other when either trace is read on demand (a file
// past the whole-file budget): core/analysis/overlay_comparison.h over each side's summaries — a
// file's, on a connection of its own, or those of a trace read whole, built in memory. Held by the
// comparison's view for as long as it shows it; jobs on any thread share it, one frame at a time.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/sawtooth/summary_timeline.h"
#include "core/analysis/overlay_comparison.h"
#include "core/io/read_limits.h"

namespace sawtooth::app {

class OverlayTimeline {
 public:
  // One side: read whole (analysis) or on demand (timeline, and its tables when the tab has read
  // them; otherwise they are read from `path`).
  struct Side {
    std::shared_ptr<const TraceAnalysis> analysis;
    std::shared_ptr<SummaryTimeline> timeline;
    std::shared_ptr<const Trace> tables;
    std::string path;
    std::string name;
  };

  static Result<std::shared_ptr<OverlayTimeline>> open(const Side& a, const Side& b, Alignment alignment,
                                                       const ReadLimits& limits, Progress& progress);

  const OverlayComparison& comparison() const { return comparison_; }
  Result<TimelineFrame> frame(const TimelineRequest& request);

 private:
  OverlayTimeline() = default;
  std::mutex mutex_;
  std::vector<std::shared_ptr<const TraceAnalysis>> kept_;  // the traces the sources in memory read
  std::vector<std::shared_ptr<native::FileSummarySource>> files_;
  OverlayComparison comparison_;
};

}  // namespace sawtooth::app
