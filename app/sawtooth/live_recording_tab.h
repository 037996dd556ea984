#pragma once
// The tab a recording shows while it runs: the timeline growing — the same chart as a finished
// trace's (views/timeline_chart.h), fed from the summaries the recorder writes into the file as it
// goes (app/sawtooth/summary_timeline.h: no limit on its length, a window read on demand; several
// files of one recording, a distributed run's ranks, through app/sawtooth/multi_summary_timeline.h),
// or, until every file followed has them, from the rows a LiveFollower reads — a line saying how
// far it has got and how long a refresh takes, Stop, and the recording's console (what the program
// prints). Once the summaries draw they go on drawing: a file that joins later is drawn from the
// moment its own summaries open. When a one-file recording ends the main window puts the finished
// trace's tab in its place, handing it this timeline and its zoom (no re-read), and the console.
// Nothing here widens the window: the status line names the file (its folder is in the tooltip)
// and wraps or clips at whatever width the tab gets.

#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <optional>

#include "app/sawtooth/live_follower.h"
#include "app/sawtooth/multi_summary_timeline.h"
#include "views/console_view.h"
#include "app/sawtooth/summary_timeline.h"
#include "views/timeline_chart.h"

namespace sawtooth::app {

// What a finished recording's tab takes over from its live tab: the timeline read from the file's
// summaries (not opened again) and the window the user was looking at.
struct LiveHandover {
  std::shared_ptr<SummaryTimeline> timeline;
  ZoomWindow window;
};

class LiveRecordingTab : public QWidget {
  Q_OBJECT
 public:
  LiveRecordingTab(const QString& path, JobRunner* jobs, QWidget* parent = nullptr);

  views::TimelineChart* chart() const { return chart_; }
  // The recording's timeline from its summaries, while the chart draws one file's; null otherwise
  // (the chart is fed from the follower's rows, or from several files' summaries).
  std::shared_ptr<SummaryTimeline> summaries() const { return fromOneFile() ? summaries_ : nullptr; }
  // The chart draws from the summaries (one file's or several): the rows are not held any more.
  bool fromSummaries() const;
  // For the finished trace's tab; nothing unless the chart draws one file's summaries.
  std::optional<LiveHandover> handover() const;
  // The events the chart draws from (the summaries', or the rows read).
  uint64_t eventsShown() const;
  views::ConsoleView* console() const { return console_; }
  LiveFollower* follower() const { return follower_; }
  const QString& path() const { return follower_->path(); }
  QString statusText() const { return status_->text(); }
  void stopFollowing();
  // Another file of this recording (a rank's, a process's): drawn beside the others.
  void addFile(const QString& path, int rank, int pid);
  // A file the recorder announced (LiveFollower::addAnnouncedFile).
  void addAnnouncedFile(const QString& path, int rank, int pid);
  // Stop ends a recording the app started; for another process's recording it is hidden.
  void setStoppable(bool stoppable);
  // The console under the chart, for a recording the app started (another process's recording
  // prints nowhere the app can read: no console). The chart keeps three quarters of the height.
  void showConsole();

 signals:
  void stopRequested();

 private:
  void updateStatus();
  bool fromOneFile() const;
  void pollSummaries();
  void showRows();
  void requestFrame(const TimelineRequest& request);

  LiveFollower* follower_;
  views::TimelineChart* chart_;
  JobRunner* jobs_;
  std::shared_ptr<SummaryTimeline> summaries_;         // the one file's
  std::shared_ptr<MultiSummaryTimeline> several_;      // several files'
  std::shared_ptr<const TimelineOverview> overview_;  // the summaries'
  QStringList summary_files_;                          // the files overview_ is of
  QTimer summary_timer_;
  bool summary_in_flight_ = false;
  double last_summary_ms_ = 0;
  QLabel* status_;
  QPushButton* stop_;
  views::ConsoleView* console_;
  QSplitter* split_;
};

}  // namespace sawtooth::app
