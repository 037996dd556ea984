#include "app/sawtooth/live_recording_tab.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLocale>
#include <QSplitter>
#include <QVBoxLayout>

namespace sawtooth::app {

LiveRecordingTab::LiveRecordingTab(const QString& path, JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      follower_(new LiveFollower(path, jobs, this)),
      chart_(new views::LiveTimelineChart(this)),
      status_(new QLabel(tr("Waiting for the recorder's first events…"), this)),
      stop_(new QPushButton(tr("Stop"), this)),
      console_(new views::ConsoleView(this)),
      split_(new QSplitter(Qt::Vertical, this)) {
  setObjectName(QStringLiteral("liveRecording"));
  stop_->setToolTip(tr("Stop the recording: the recorder closes its file and the trace opens."));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setWordWrap(true);
  // Its text never sets the window's width: it wraps (or clips) at the width it is given.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  status_->setToolTip(path);
  auto* top = new QHBoxLayout;
  top->addWidget(status_, 1);
  top->addWidget(stop_);
  split_->addWidget(chart_);
  split_->addWidget(console_);
  split_->setStretchFactor(0, 3);
  split_->setStretchFactor(1, 1);
  split_->setChildrenCollapsible(false);
  console_->hide();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(split_, 1);
  chart_->setTimeline(&follower_->timeline());
  chart_->setToolTip(tr("Wheel: zoom · drag: pan · double click or End: show everything and follow the live edge"));
  connect(stop_, &QPushButton::clicked, this, [this] {
    stop_->setEnabled(false);
    stop_->setText(tr("Stopping…"));
    emit stopRequested();
  });
  connect(follower_, &LiveFollower::grew, this, [this] {
    chart_->refresh();
    updateStatus();
  });
  connect(follower_, &LiveFollower::reachedLimit, this, [this] {
    status_->setText(tr("The live view holds the first %L1 events and stops growing here; the whole recording opens "
                        "when it ends.")
                         .arg(follower_->timeline().events()));
  });
  connect(follower_, &LiveFollower::failed, this, [this](const QString& message) {
    status_->setText(tr("The live view stopped: %1 (the recording goes on; its trace opens when it ends)").arg(message));
  });
  follower_->start();
}

namespace {
QString fileLabel(int rank, int pid) {
  return rank >= 0 ? LiveRecordingTab::tr("rank %1").arg(rank)
                   : pid >= 0 ? LiveRecordingTab::tr("pid %1").arg(pid) : QString();
}
}  // namespace

void LiveRecordingTab::addFile(const QString& path, int rank, int pid) { follower_->addFile(path, fileLabel(rank, pid)); }

void LiveRecordingTab::addAnnouncedFile(const QString& path, int rank, int pid) {
  follower_->addAnnouncedFile(path, fileLabel(rank, pid));
}

void LiveRecordingTab::setStoppable(bool stoppable) { stop_->setVisible(stoppable); }

void LiveRecordingTab::showConsole() {
  console_->show();
  // Weights, not pixels: the splitter shares its height 3 : 1 (the editor's size hint alone would
  // take half of it, mostly empty while a workload prints nothing).
  split_->setSizes({3000, 1000});
}

void LiveRecordingTab::stopFollowing() {
  follower_->stop();
  stop_->setEnabled(false);
}

void LiveRecordingTab::updateStatus() {
  const LiveTimeline& t = follower_->timeline();
  if (!t.firstTime() || follower_->capped()) return;
  const QLocale locale;
  const double seconds = static_cast<double>(t.lastTime() - *t.firstTime()) / 1e9;
  const QString name = QFileInfo(follower_->path()).fileName();
  const QString what = follower_->files() > 1 ? tr("%1 (%2 files)").arg(name).arg(follower_->files()) : name;
  status_->setText(tr("Recording %1 — %2 events, %3 s · %4 · last refresh: read %5 ms, added in %6 ms")
                       .arg(what, locale.toString(static_cast<qulonglong>(t.events())),
                            QString::number(seconds, 'f', 1),
                            chart_->followsLiveEdge() ? tr("following the live edge") : tr("zoom kept (End: follow)"),
                            QString::number(follower_->lastReadMs(), 'f', 2),
                            QString::number(follower_->lastAppendMs(), 'f', 2)));
}

}  // namespace sawtooth::app
