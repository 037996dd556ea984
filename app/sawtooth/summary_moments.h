#pragma once
// The allocator, live bytes and modules views of a file too large to read whole (issue 25): each
// moment — the device's peak when the file opens, then the allocator event the user scrubs to —
// replayed from the summaries' nearest stored allocator state (core/analysis/summary_moment.h) in
// a job, and the three views handed what it gives. As AllocatorController's maps, moments coalesce
// rather than queue: while one is computed only the newest request waits. The fragmentation chart
// of the device is drawn from the summaries a window at a time; a click on it moves the moment.

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "app/sawtooth/job_runner.h"
#include "app/sawtooth/summary_timeline.h"
#include "views/allocator_state_view.h"
#include "views/fragmentation_chart.h"
#include "views/timeline_chart.h"
#include "views/live_bytes_view.h"
#include "views/modules_view.h"

namespace sawtooth::app {

class SummaryMoments : public QObject {
  Q_OBJECT
 public:
  struct Views {
    views::AllocatorStateView* state = nullptr;
    views::LiveBytesView* live = nullptr;
    views::ModulesView* modules = nullptr;
    views::FragmentationChart* fragmentation = nullptr;  // under the timeline, on its x axis and zoom
    views::TimelineChart* timeline = nullptr;
  };
  SummaryMoments(JobRunner& jobs, QString slot_prefix, Views views, QObject* parent);

  // The views of `device` (with `events` allocator events), opening at its peak.
  void start(std::shared_ptr<SummaryTimeline> timeline, std::shared_ptr<const Trace> tables, DeviceId device,
             int64_t events);
  void requestPosition(qint64 position);
  // The file is read whole after all (its views are AllocatorController's now).
  void stop();

 private:
  QString slot() const { return slot_prefix_ + QStringLiteral(" moment"); }
  void startNext();
  void showFragmentation();
  void requestFragmentation(const FragmentationRequest& request);
  void fragmentationClicked(double x);

  JobRunner& jobs_;
  QString slot_prefix_;
  Views views_;
  std::shared_ptr<SummaryTimeline> timeline_;
  std::shared_ptr<const Trace> tables_;
  DeviceId device_ = 0;
  std::optional<std::optional<qint64>> pending_;  // a request waiting: a position, or the peak
  bool running_ = false;
  std::optional<std::pair<qint64, double>> marker_;  // the last moment's event and time
};

}  // namespace sawtooth::app
