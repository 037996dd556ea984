#include "app/sawtooth/live_follower.h"

#include "app/sawtooth/app_logging.h"
#include "core/io/live_tail.h"

namespace sawtooth::app {
namespace {

struct Polled {
  LiveBatch batch;
  double read_ms = 0;
};

}  // namespace

LiveFollower::LiveFollower(QString path, JobRunner* jobs, QObject* parent)
    : QObject(parent), path_(std::move(path)), jobs_(jobs), tail_(std::make_shared<LiveTail>(path_.toStdString())) {
  connect(&timer_, &QTimer::timeout, this, &LiveFollower::poll);
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
  auto tail = tail_;
  const uint64_t room = max_events_ > timeline_.events() ? max_events_ - timeline_.events() : 0;
  jobs_->run<Polled>(
      QStringLiteral("live: ") + path_, tr("Following %1").arg(path_), this,
      [tail, room](Progress&) -> Result<Polled> {
        QElapsedTimer clock;
        clock.start();
        auto batch = tail->poll(room);
        if (!batch) return batch.error();
        return Polled{std::move(*batch), clock.nsecsElapsed() / 1e6};
      },
      [this](Polled polled) {
        in_flight_ = false;
        QElapsedTimer clock;
        clock.start();
        timeline_.setDevices(polled.batch.devices);
        timeline_.append(polled.batch.rows);
        last_append_ms_ = clock.nsecsElapsed() / 1e6;
        last_read_ms_ = polled.read_ms;
        ++refreshes_;
        qCDebug(lcRecorder) << "live:" << polled.batch.rows.size() << "new events read in" << last_read_ms_ << "ms, appended in"
                       << last_append_ms_ << "ms;" << timeline_.events() << "in all";
        if (!polled.batch.rows.empty() || refreshes_ == 1) emit grew();
        if (timeline_.events() >= max_events_ && !capped_) {
          capped_ = true;  // later polls read no rows, only whether the recording has ended
          emit reachedLimit();
        }
        if (polled.batch.more && !capped_ && timer_.isActive()) QTimer::singleShot(0, this, &LiveFollower::poll);
        if (polled.batch.complete && !ended_) {
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

}  // namespace sawtooth::app
