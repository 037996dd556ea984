#pragma once
// The jobs behind a trace's allocator views (JobRunner): the allocator's replay (with its
// checkpoints) and fragmentation series for the device with the largest peak, the segment map at
// the event the user scrubs to or the timeline's cursor is on, and the live bytes by call site at
// the peak or at a clicked event. Every computation is core's (allocator_replay, segment_map,
// live_bytes); the views only draw what this hands them. TraceController owns one per tab.
//
// Segment maps coalesce rather than supersede: while one map is computed only the newest request
// waits, so scrubbing shows maps as fast as they can be made and never queues up. The live bytes
// supersede (only the newest click's arrive); a new trace drops every older result.

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "app/sawtooth/job_runner.h"
#include "core/analysis/allocator_history.h"
#include "core/analysis/trace_analysis.h"
#include "views/allocator_state_view.h"
#include "views/fragmentation_chart.h"
#include "views/live_bytes_view.h"
#include "views/module_band.h"
#include "views/modules_view.h"
#include "views/timeline_chart.h"

namespace sawtooth::app {

class AllocatorController : public QObject {
  Q_OBJECT
 public:
  struct Views {
    views::TimelineChart* timeline = nullptr;  // optional: the cursor the map follows, the zoom the chart shares
    views::AllocatorStateView* state = nullptr;
    views::FragmentationChart* fragmentation = nullptr;
    views::LiveBytesView* live = nullptr;
    views::ModulesView* modules = nullptr;  // optional: the bytes by module at the same moment
    views::ModuleBandView* band = nullptr;  // optional: the top-level blocks under the timeline
  };
  // `slot_prefix` names this trace's jobs in the runner ("<tab> allocator").
  AllocatorController(JobRunner& jobs, QString slot_prefix, Views views, QObject* parent);

  // Starts the replay (the segment map opens at the first out-of-memory event, else at the peak)
  // and the live bytes at the peak.
  void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
  std::shared_ptr<const AllocatorHistory> history() const { return history_; }

  void requestPosition(qint64 position);
  // Live bytes at an allocator event of the device; empty: at its peak.
  void requestLiveBytes(std::optional<qint64> position);
  // The bytes each module holds then (the Modules view).
  void requestModules(std::optional<qint64> position);
  // The top-level blocks' band under the timeline.
  void requestBand();

 private:
  QString slot(const char* what) const { return slot_prefix_ + QLatin1Char(' ') + QLatin1String(what); }
  void startMap();
  void followTimeline(qint64 event);
  void syncWithTimeline();

  JobRunner& jobs_;
  QString slot_prefix_;
  Views views_;
  std::shared_ptr<const TraceAnalysis> analysis_;
  std::shared_ptr<const AllocatorHistory> history_;
  int16_t device_ = 0;
  std::optional<qint64> pending_;
  bool map_running_ = false;
};

}  // namespace sawtooth::app
