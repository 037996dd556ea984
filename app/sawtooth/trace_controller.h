#pragma once
// The jobs of one trace tab (JobRunner): loading the file into its report, the events table's
// filter and sort, the rank lanes, the allocator views' replay, segment maps and live bytes
// (AllocatorController), and the tab's exports. The tab (views/) only draws what it is
// handed; every computation and every file access happens here, off the GUI thread. A newer
// filter or sort supersedes the one still running; closing the tab cancels its jobs.

#include <QObject>
#include <QString>

#include "app/sawtooth/allocator_controller.h"
#include "app/sawtooth/job_runner.h"
#include "app/sawtooth/live_recording_tab.h"
#include "app/sawtooth/summary_moments.h"
#include "app/sawtooth/summary_timeline.h"
#include "core/io/event_pages.h"
#include "views/trace_tab.h"

namespace sawtooth::app {

class TraceController : public QObject {
  Q_OBJECT
 public:
  // Lives as long as the tab (its child).
  TraceController(JobRunner& jobs, views::TraceTab* tab);

  // A .sawtooth file with summaries: its timeline first, from them (no event read), then the
  // report in the background when the file fits the whole-file budget. A PyTorch snapshot too large
  // to read whole (estimated past the whole-file budget): its conversion in the user's cache when
  // there is one, else the tab offers to convert it (convert()). Any other file: the report.
  void load();
  // Converts the tab's snapshot into the cache (progress and Cancel on the tab; a cancelled
  // conversion leaves nothing there), then opens the conversion.
  void convert();
  // The file the tab reads: its own, or its snapshot's conversion.
  const QString& source() const { return source_; }
  // A recording that just ended, its timeline taken over from its live tab: shown at once with the
  // live tab's window (the summaries' few rows read again, not the events), the rest as load().
  void adopt(const LiveHandover& handover);
  std::shared_ptr<SummaryTimeline> summaryTimeline() const { return timeline_; }
  // A file past the whole-file budget, read on demand: what a comparison diffs it from (its moment
  // at the peak of its largest device); empty when the tab reads its file whole or has no timeline.
  struct OnDemand {
    std::shared_ptr<SummaryTimeline> timeline;
    std::string source;
    DeviceId device = 0;
    std::shared_ptr<const Trace> tables;  // the file's tables once the tab has read them; else null
  };
  std::optional<OnDemand> onDemand() const;
  void cancelLoading();
  // The current view's chart (drawn now, written in a job) or CSV ("series", "events", "table").
  // False when there is nothing to export; the result comes with exportFinished.
  bool exportChart(const QString& path);
  bool exportCsv(const QString& what, const QString& path);

 signals:
  void exportFinished(QString path, QString error);  // error empty on success

 private:
  QString slot(const char* what) const;
  void loadReport();
  // True when the snapshot is past the budget: opened from its conversion, or the offer shown.
  bool openConversionOrOffer();
  void showTimeline(std::shared_ptr<SummaryTimeline> timeline, TimelineOverview overview, uint64_t file_bytes);
  void requestFrame(const TimelineRequest& request);
  void queryEvents(const EventQuery& query);
  // A file past the whole-file budget: its events table read a page at a time (io/event_pages.h).
  void openEventPages();
  void readEventPage(const EventQuery& query, quint64 first_row);
  // One pass over the events in the background: the plan against the count and the first
  // out-of-memory's post-mortem (core/analysis/summary_report.h), added to `runs`.
  void countWholeTrace(TraceReport runs);
  void loadRankLanes();
  void runExport(const QString& path, std::function<Result<Ok>(Progress&)> work);

  JobRunner& jobs_;
  views::TraceTab* tab_;
  AllocatorController* allocator_;
  SummaryMoments* moments_;  // the same views for a file past the whole-file budget
  // The device the moments show (the largest peak) and its allocator events.
  DeviceId moment_device_ = 0;
  int64_t moment_events_ = 0;
  std::shared_ptr<SummaryTimeline> timeline_;
  std::shared_ptr<const EventPages> pages_;
  QString source_;
};

}  // namespace sawtooth::app
