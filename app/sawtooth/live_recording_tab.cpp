#include "app/sawtooth/live_recording_tab.h"

#include "core/analysis/live_timeline_frame.h"
#include "app/sawtooth/reading_limits.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLocale>
#include <QSplitter>
#include <QVBoxLayout>

namespace sawtooth::app {

LiveRecordingTab::LiveRecordingTab(const QString& path, JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      follower_(new LiveFollower(path, jobs, this)),
      chart_(new views::TimelineChart(this)),
      jobs_(jobs),
      several_(std::make_shared<MultiSummaryTimeline>()),
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
  chart_->setXAxisByTime(true);
  chart_->setTitle(QFileInfo(path).fileName());
  chart_->setToolTip(tr("Wheel: zoom · drag: pan · double click or End: show everything and follow the live edge"));
  connect(chart_, &views::TimelineChart::frameRequested, this, &LiveRecordingTab::requestFrame);
  connect(stop_, &QPushButton::clicked, this, [this] {
    stop_->setEnabled(false);
    stop_->setText(tr("Stopping…"));
    emit stopRequested();
  });
  connect(follower_, &LiveFollower::grew, this, [this] {
    if (!fromSummaries()) showRows();
    updateStatus();
  });
  connect(follower_, &LiveFollower::reachedLimit, this, [this] {
    if (fromSummaries()) return;  // the chart reads the file's summaries: no limit
    QString text = tr("The live view holds the first %L1 events and stops growing here; the whole recording opens "
                      "when it ends.")
                       .arg(follower_->timeline().events());
    if (follower_->windowEvents() > 0)
      text += tr(" Its window (the last %L1 events) needs more memory than a file read whole may take: raise it in "
                 "Settings ▸ Reading limits to follow it.")
                  .arg(follower_->windowEvents());
    status_->setText(text);
  });
  connect(follower_, &LiveFollower::failed, this, [this](const QString& message) {
    status_->setText(tr("The live view stopped: %1 (the recording goes on; its trace opens when it ends)").arg(message));
  });
  // A windowed recording's rows may take what a file read whole may (its window bounds them).
  follower_->setWindowedCeiling(
      std::max<uint64_t>(LiveFollower::kDefaultMaxEvents, wholeFileBudgetFromSettings() / LiveFollower::kBytesPerEvent));
  follower_->start();
  connect(&summary_timer_, &QTimer::timeout, this, &LiveRecordingTab::pollSummaries);
  summary_timer_.start(250);
  pollSummaries();
}

bool LiveRecordingTab::fromSummaries() const { return overview_ && !overview_->devices.empty(); }

bool LiveRecordingTab::fromOneFile() const { return fromSummaries() && summary_files_ == QStringList{path()}; }

std::optional<LiveHandover> LiveRecordingTab::handover() const {
  // The finished trace of several files is another file (the ranks merged): it opens on its own.
  if (!fromOneFile() || follower_->files() != 1) return std::nullopt;
  return LiveHandover{summaries_, chart_->window()};
}

uint64_t LiveRecordingTab::eventsShown() const {
  return fromSummaries() ? overview_->events : follower_->timeline().events();
}

void LiveRecordingTab::showRows() {
  chart_->setOverview(std::make_shared<const TimelineOverview>(overviewOf(follower_->timeline())));
}

void LiveRecordingTab::requestFrame(const TimelineRequest& request) {
  if (!fromSummaries()) {
    // The follower's rows are in memory: a frame costs a few pyramid queries.
    chart_->setFrame(frameOf(follower_->timeline(), request));
    return;
  }
  jobs_->run<TimelineFrame>(
      QStringLiteral("live frame: ") + path(), tr("Drawing the recording's timeline"), this,
      [one = fromOneFile() ? summaries_ : nullptr, several = several_, request](Progress&) {
        return one ? one->frame(request) : several->frame(request);
      },
      [this](TimelineFrame frame) { chart_->setFrame(std::move(frame)); },
      [this](const QString& error) { chart_->setFrameFailed(error); });
}

namespace {

struct Polled {
  std::shared_ptr<SummaryTimeline> timeline;  // the one file's (null: several files')
  TimelineOverview overview;
  double ms = 0;
};

Result<Polled> pollFile(std::shared_ptr<SummaryTimeline> timeline, const std::string& path) {
  QElapsedTimer clock;
  clock.start();
  if (!timeline) {
    auto opened = SummaryTimeline::openGrowing(path, ReadLimits{});
    if (!opened) return opened.error();  // not yet: the recorder has not made its tables
    timeline = std::move(*opened);
  }
  auto overview = timeline->refresh();
  if (!overview) return overview.error();
  return Polled{std::move(timeline), std::move(*overview), clock.nsecsElapsed() / 1e6};
}

Result<Polled> pollFiles(MultiSummaryTimeline& several, const std::vector<MultiSummaryTimeline::File>& files) {
  QElapsedTimer clock;
  clock.start();
  if (Status st = several.follow(files); !st) return st.error();  // a file without its tables yet
  auto overview = several.refresh();
  if (!overview) return overview.error();
  return Polled{nullptr, std::move(*overview), clock.nsecsElapsed() / 1e6};
}

}  // namespace

void LiveRecordingTab::pollSummaries() {
  if (summary_in_flight_ || !jobs_) return;
  summary_in_flight_ = true;
  std::vector<MultiSummaryTimeline::File> files;
  QStringList paths;
  for (const LiveFollower::Followed& f : follower_->followed()) {
    files.push_back({f.path.toStdString(), f.label, f.source});
    paths << f.path;
  }
  const bool one = paths == QStringList{path()};
  jobs_->run<Polled>(
      QStringLiteral("live summaries: ") + path(), tr("Following %1").arg(path()), this,
      [one, files, timeline = summaries_, several = several_](Progress&) -> Result<Polled> {
        return one ? pollFile(timeline, files.front().path) : pollFiles(*several, files);
      },
      [this, paths](Polled polled) {
        summary_in_flight_ = false;
        QStringList followed;
        for (const LiveFollower::Followed& f : follower_->followed()) followed << f.path;
        if (paths != followed) return;  // a file came or went while it read: the next poll reads them
        const bool was = fromSummaries();
        // Drawn once, the summaries go on drawing (the rows stopped there).
        if (was && polled.overview.devices.empty()) return;
        const bool grew = !overview_ || polled.overview.events != overview_->events || paths != summary_files_;
        if (polled.timeline) summaries_ = std::move(polled.timeline);
        summary_files_ = paths;
        overview_ = std::make_shared<const TimelineOverview>(std::move(polled.overview));
        last_summary_ms_ = polled.ms;
        if (!fromSummaries()) return;
        // The rows need not be held any more: the summaries draw the chart, however long it runs.
        if (!was) follower_->setMaxEvents(follower_->timeline().events());
        if (grew || !was) chart_->setOverview(overview_);
        updateStatus();
      },
      [this](const QString&) { summary_in_flight_ = false; });
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
  summary_timer_.stop();
  if (jobs_) jobs_->cancel(QStringLiteral("live summaries: ") + path());
  stop_->setEnabled(false);
}

void LiveRecordingTab::updateStatus() {
  if (fromSummaries()) {
    const QLocale locale;
    const double seconds = (overview_->x_max_time - overview_->x_min_time) / 1e9;
    const QString name = QFileInfo(follower_->path()).fileName();
    const bool several = summary_files_.size() > 1;
    status_->setText((several ? tr("Recording %1 — %2 events, %3 s · %4 · from the files' summaries (refresh %5 ms)")
                              : tr("Recording %1 — %2 events, %3 s · %4 · from the file's summaries (refresh %5 ms)"))
                         .arg(several ? tr("%1 (%2 files)").arg(name).arg(summary_files_.size()) : name,
                              locale.toString(static_cast<qulonglong>(overview_->events)), QString::number(seconds, 'f', 1),
                              chart_->followsLatest() ? tr("following the live edge") : tr("zoom kept (End: follow)"),
                              QString::number(last_summary_ms_, 'f', 2)));
    return;
  }
  const LiveTimeline& t = follower_->timeline();
  if (!t.firstTime() || follower_->capped()) return;
  const QLocale locale;
  const double seconds = static_cast<double>(t.lastTime() - *t.firstTime()) / 1e9;
  const QString name = QFileInfo(follower_->path()).fileName();
  const QString what = follower_->files() > 1 ? tr("%1 (%2 files)").arg(name).arg(follower_->files()) : name;
  QString text = tr("Recording %1 — %2 events, %3 s · %4 · last refresh: read %5 ms, added in %6 ms")
                     .arg(what, locale.toString(static_cast<qulonglong>(t.events())), QString::number(seconds, 'f', 1),
                          chart_->followsLatest() ? tr("following the live edge") : tr("zoom kept (End: follow)"),
                          QString::number(follower_->lastReadMs(), 'f', 2),
                          QString::number(follower_->lastAppendMs(), 'f', 2));
  if (follower_->windowRestarts() > 0)
    text += tr(" · the recording keeps its last events only: shown from its window's start, read again %n time(s)", "",
               follower_->windowRestarts());
  status_->setText(text);
}

}  // namespace sawtooth::app
