#pragma once
// The allocator, live bytes and modules views of a file too large to read whole (issue 25): each
// moment — the device's peak when the file opens, then the allocator event the user scrubs to —
// replayed from the summaries' nearest stored allocator state (core/analysis/summary_moment.h) in
// a job, and the three views handed what it gives. As AllocatorController's maps, moments coalesce
// rather than queue: while one is computed only the newest request waits.

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "app/sawtooth/job_runner.h"
#include "app/sawtooth/summary_timeline.h"
#include "views/allocator_state_view.h"
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

  JobRunner& jobs_;
  QString slot_prefix_;
  Views views_;
  std::shared_ptr<SummaryTimeline> timeline_;
  std::shared_ptr<const Trace> tables_;
  DeviceId device_ = 0;
  std::optional<std::optional<qint64>> pending_;  // a request waiting: a position, or the peak
  bool running_ = false;
};

}  // namespace sawtooth::app
