#pragma once
// The files of one recording being written (a distributed run's ranks, a program's processes),
// each read from its own summaries (summary_timeline.h) and drawn as one timeline
// (core/analysis/timeline_merge.h): like one file's, no limit on their length and a window read on
// demand. Jobs on any thread share it: the poll job follows the files and refreshes, frame jobs
// ask each file for its part of a window; each file serialises its own queries.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/sawtooth/summary_timeline.h"
#include "core/analysis/live_sources.h"
#include "core/analysis/timeline_merge.h"

namespace sawtooth::app {

class MultiSummaryTimeline {
 public:
  struct File {
    std::string path;
    std::string label;  // "rank 1"
    size_t source = 0;  // the follower's number for the file: its devices get the ids its rows get
  };

  // Opens the summaries of the files not open yet and lets go of those no longer listed. An error
  // while one of them has none (not written yet, or a file written without them): those opened
  // are kept for the next call.
  Status follow(const std::vector<File>& files);
  // Re-reads how far each file goes and makes the overview of them all.
  Result<TimelineOverview> refresh();
  Result<TimelineFrame> frame(const TimelineRequest& request);
  size_t files() const;

 private:
  struct Member {
    File file;
    std::shared_ptr<SummaryTimeline> timeline;
    TimelinePart part;  // as of the last refresh
  };
  std::vector<Member> members() const;

  std::mutex poll_mutex_;     // follow() and refresh(): one at a time
  mutable std::mutex mutex_;  // members_ and ids_; no query runs under it
  std::vector<Member> members_;
  LiveSourceMap ids_;
};

}  // namespace sawtooth::app
