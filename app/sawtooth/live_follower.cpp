#include "app/sawtooth/live_follower.h"

#include <algorithm>

#include "app/sawtooth/app_logging.h"
#include "core/io/live_tail.h"

namespace sawtooth::app {
namespace {

struct Polled {
  std::vector<std::pair<size_t, LiveBatch>> batches;  // by source
  bool more = false;
  double read_ms = 0;
};

}  // namespace

LiveFollower::LiveFollower(QString path, JobRunner* jobs, QObject* parent)
    : QObject(parent), path_(std::move(path)), jobs_(jobs) {
  sources_.push_back(Source{path_, {}, std::make_shared<LiveTail>(path_.toStdString())});
  connect(&timer_, &QTimer::timeout, this, &LiveFollower::poll);
}

void LiveFollower::addFile(const QString& path, const QString& label) {
  for (Source& s : sources_)
    if (s.path == path) {
      s.dropped = false;  // the recording writes the first file after all
      if (s.label.empty()) s.label = label.toStdString();
      return;
    }
  if (sources_.size() >= kMaxFiles) return;
  sources_.push_back(Source{path, label.toStdString(), std::make_shared<LiveTail>(path.toStdString())});
  qCInfo(lcRecorder) << "live: following" << path << "as" << label;
}

void LiveFollower::addAnnouncedFile(const QString& path, const QString& label) {
  const bool first = path == sources_.front().path;
  if (!first && !sources_.front().ready) sources_.front().dropped = true;
  addFile(path, label);
}

uint64_t LiveFollower::windowEvents() const {
  uint64_t sum = 0;
  for (const Source& s : sources_) {
    if (s.dropped) continue;
    if (s.window_events == 0) return 0;
    sum += s.window_events;
  }
  return sum;
}

int LiveFollower::files() const {
  return static_cast<int>(std::count_if(sources_.begin(), sources_.end(), [](const Source& s) { return !s.dropped; }));
}

std::vector<LiveFollower::Followed> LiveFollower::followed() const {
  std::vector<Followed> out;
  for (size_t i = 0; i < sources_.size(); ++i)
    if (!sources_[i].dropped) out.push_back(Followed{sources_[i].path, sources_[i].label, i});
  return out;
}

LiveFollower::~LiveFollower() { stop(); }

void LiveFollower::start(int interval_ms) {
  timer_.start(interval_ms);
  poll();
}

void LiveFollower::stop() {
  timer_.stop();
  if (in_flight_ && jobs_) jobs_->cancel(QStringLiteral("live: ") + path_);
  in_flight_ = false;
}

void LiveFollower::poll() {
  if (in_flight_ || !jobs_) return;
  in_flight_ = true;
  std::vector<std::pair<size_t, std::shared_ptr<LiveTail>>> tails;
  for (size_t i = 0; i < sources_.size(); ++i)
    if (!sources_[i].dropped && !sources_[i].complete) tails.emplace_back(i, sources_[i].tail);
  const uint64_t allowed = room();
  jobs_->run<Polled>(
      QStringLiteral("live: ") + path_, tr("Following %1").arg(path_), this,
      [tails, allowed](Progress&) -> Result<Polled> {
        QElapsedTimer clock;
        clock.start();
        Polled polled;
        uint64_t left = allowed;
        for (const auto& [index, tail] : tails) {
          auto batch = tail->poll(left);
          if (!batch) return batch.error();
          left -= std::min<uint64_t>(left, batch->rows.size());
          polled.more = polled.more || batch->more;
          polled.batches.emplace_back(index, std::move(*batch));
        }
        polled.read_ms = clock.nsecsElapsed() / 1e6;
        return polled;
      },
      [this](Polled polled) {
        in_flight_ = false;
        QElapsedTimer clock;
        clock.start();
        size_t new_rows = 0;
        // The limit may have been lowered while this poll read (the chart moved to the file's
        // summaries): what it read past the limit is not held.
        uint64_t left = room();
        bool fell_behind = false;
        for (auto& [index, batch] : polled.batches) {
          Source& source = sources_[index];
          source.ready = source.ready || batch.ready;
          source.complete = batch.complete;
          if (source.dropped) continue;
          if (batch.fell_behind) {
            // Rows went before they were read: what the timeline holds is not the file's any more.
            fell_behind = true;
            continue;
          }
          if (batch.rows.size() > left) batch.rows.resize(left);
          left -= batch.rows.size();
          source.window_events = batch.window_events;
          if (sources_.size() > 1) source_map_.remap(index, source.label, batch.devices, batch.rows);
          timeline_.setDevices(batch.devices);
          timeline_.append(batch.rows);
          new_rows += batch.rows.size();
        }
        last_append_ms_ = clock.nsecsElapsed() / 1e6;
        last_read_ms_ = polled.read_ms;
        ++refreshes_;
        qCDebug(lcRecorder) << "live:" << new_rows << "new events read in" << last_read_ms_ << "ms, appended in"
                       << last_append_ms_ << "ms;" << timeline_.events() << "in all";
        if (new_rows > 0 || refreshes_ == 1) emit grew();
        if (refilling_ && !polled.more) refilling_ = false, refilled_ = timeline_.events();
        bool restarted = false;  // read again from the window: at once
        if (fell_behind && !capped_) {
          qCInfo(lcRecorder) << "live:" << path_ << "deleted rows not read yet (its window's cut); reading it again from its window";
          readAgainFromTheWindow();
          restarted = true;
        } else if (timeline_.events() >= max_events_ && !capped_) {
          onFull();
          restarted = !capped_;
        }
        if ((polled.more || restarted) && !capped_ && timer_.isActive()) QTimer::singleShot(0, this, &LiveFollower::poll);
        const bool all_complete = std::all_of(sources_.begin(), sources_.end(),
                                              [](const Source& s) { return s.dropped || s.complete; });
        if (all_complete && !ended_) {
          ended_ = true;
          timer_.stop();
          emit recordingEnded();
        }
      },
      [this](QString message) {
        in_flight_ = false;
        error_ = message;
        timer_.stop();  // a file that is not what Sawtooth writes will not become one
        emit failed(message);
      });
}

void LiveFollower::onFull() {
  // Every file keeps a window, and the windows together fit: caught up after the last restart with
  // at most half the limit (however much slack the writers keep past their windows).
  const uint64_t window = windowEvents();
  if (window > max_events_ / 2 && window <= windowed_ceiling_ / 2 && !refilling_) {
    qCInfo(lcRecorder) << "live: the limit raised from" << max_events_ << "to" << 2 * window << "events for windows of" << window;
    max_events_ = 2 * window;
  }
  const bool fits = window > 0 && window <= max_events_ / 2 && !refilling_ &&
                    (window_restarts_ == 0 || refilled_ <= max_events_ / 2);
  if (!fits) {
    capped_ = true;  // later polls read no rows, only whether the recording has ended
    emit reachedLimit();
    return;
  }
  qCInfo(lcRecorder) << "live:" << timeline_.events() << "events held; reading" << path_ << "again from its window of the last"
                     << window << "events";
  readAgainFromTheWindow();
}

void LiveFollower::readAgainFromTheWindow() {
  for (Source& source : sources_) {
    if (source.dropped) continue;
    source.tail = std::make_shared<LiveTail>(source.path.toStdString());
    source.complete = false;
  }
  timeline_ = LiveTimeline{};
  refilling_ = true;
  ++window_restarts_;
  emit restartedAtTheWindow(windowEvents());
}

}  // namespace sawtooth::app
