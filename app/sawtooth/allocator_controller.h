#pragma once
// The jobs behind a trace's allocator views, off the GUI thread: the allocator's replay (with its
// checkpoints) and fragmentation series for the device with the largest peak, the segment map at
// the event the user scrubs to or the timeline's cursor is on (requests coalesce: while one map is
// computed only the newest request waits, so scrubbing never queues up), and the live bytes by
// call site at the peak or at a clicked event. The views only draw what this hands them.

#include <QObject>
#include <QPointer>
#include <memory>
#include <optional>

#include "core/analysis/allocator_history.h"
#include "core/analysis/trace_analysis.h"
#include "views/allocator_state_view.h"
#include "views/diff_sites_view.h"
#include "views/fragmentation_chart.h"
#include "views/live_bytes_view.h"
#include "views/timeline_chart.h"

namespace sawtooth::app {

class AllocatorController : public QObject {
  Q_OBJECT
 public:
  struct Views {
    views::TimelineChart* timeline = nullptr;
    views::AllocatorStateView* state = nullptr;
    views::FragmentationChart* fragmentation = nullptr;
    views::LiveBytesView* live = nullptr;
  };
  AllocatorController(Views views, QObject* parent);

  // Starts the replay (the segment map opens at the first out-of-memory event, else at the peak)
  // and the live bytes at the peak.
  void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
  std::shared_ptr<const AllocatorHistory> history() const { return history_; }
  bool busy() const { return jobs_ > 0; }

  void requestPosition(qint64 position);
  // Live bytes at an allocator event of the device; empty: at its peak.
  void requestLiveBytes(std::optional<qint64> position);

 signals:
  void idle();  // every job has delivered

 private:
  template <typename T, typename Work, typename Done>
  void run(Work work, Done done);
  void startMap();
  void followTimeline(qint64 event);
  void syncWithTimeline();

  Views views_;
  std::shared_ptr<const TraceAnalysis> analysis_;
  std::shared_ptr<const AllocatorHistory> history_;
  int16_t device_ = 0;
  std::optional<qint64> pending_;
  bool map_running_ = false;
  int jobs_ = 0;
  quint64 generation_ = 0;  // a new analysis drops the old one's results
};

// The comparison's "Call sites" part: diffs the two traces by call site off the GUI thread and
// hands the result to the view (dropped if the view is gone).
void runSiteDiff(views::DiffSitesView* view, std::shared_ptr<const Trace> a, QString name_a, std::shared_ptr<const Trace> b,
                 QString name_b);

}  // namespace sawtooth::app
