#pragma once
// The tab a recording shows while it runs: the timeline growing (views/live_timeline_chart.h, fed
// by a LiveFollower), a line saying how far it has got and how long a refresh takes, Stop, and the
// recording's console (what the program prints). When the recording ends the main window replaces
// it with the finished trace's tab, which keeps the console.
// Nothing here widens the window: the status line names the file (its folder is in the tooltip)
// and wraps or clips at whatever width the tab gets.

#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QWidget>

#include "app/sawtooth/live_follower.h"
#include "views/console_view.h"
#include "views/live_timeline_chart.h"

namespace sawtooth::app {

class LiveRecordingTab : public QWidget {
  Q_OBJECT
 public:
  LiveRecordingTab(const QString& path, JobRunner* jobs, QWidget* parent = nullptr);

  views::LiveTimelineChart* chart() const { return chart_; }
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

  LiveFollower* follower_;
  views::LiveTimelineChart* chart_;
  QLabel* status_;
  QPushButton* stop_;
  views::ConsoleView* console_;
  QSplitter* split_;
};

}  // namespace sawtooth::app
