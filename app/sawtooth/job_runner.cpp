#include "app/sawtooth/job_runner.h"

#include <algorithm>

#include <QMetaObject>

#include "app/sawtooth/app_logging.h"

namespace sawtooth::app {

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
  // Room for a load, a query and an export at once; the GUI thread is never one of them.
  pool_.setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
}

JobRunner::~JobRunner() {
  cancelAll();
  pool_.waitForDone();
}

JobRunner::JobId JobRunner::start(const QString& slot, const QString& title, QObject* context,
                                  std::function<std::function<void()>(Progress&)> work, std::function<void(int)> progress) {
  const JobId id = ++next_id_;
  Job job;
  job.slot = slot;
  job.title = title;
  job.context = context ? context : this;
  job.progress = std::move(progress);
  if (auto older = current_.find(slot); !slot.isEmpty() && older != current_.end()) {
    if (auto it = jobs_.find(older.value()); it != jobs_.end()) {
      it->cancel->store(true);
      qCDebug(lcJobs) << "job" << older.value() << "superseded by" << id << "in" << slot;
    }
  }
  if (!slot.isEmpty()) current_.insert(slot, id);
  if (context)
    job.on_context_death = connect(context, &QObject::destroyed, this, [this, id] {
      if (auto it = jobs_.find(id); it != jobs_.end()) it->cancel->store(true);
    });
  const auto cancel = job.cancel;
  jobs_.insert(id, std::move(job));
  qCDebug(lcJobs) << "job" << id << "started:" << title << "in" << slot;
  emit jobStarted(id, slot, title);

  QPointer<JobRunner> self(this);
  pool_.start([self, id, cancel, work = std::move(work)] {
    Progress reporter(
        [self, id](int permille) {
          QMetaObject::invokeMethod(
              self, [self, id, permille] {
                if (!self) return;
                auto it = self->jobs_.find(id);
                if (it == self->jobs_.end() || it->cancel->load()) return;
                if (it->progress) it->progress(permille);
                emit self->jobProgress(id, permille);
              },
              Qt::QueuedConnection);
        },
        cancel.get());
    std::function<void()> deliver = work(reporter);
    QMetaObject::invokeMethod(
        self, [self, id, deliver = std::move(deliver)] {
          if (self) self->finish(id, deliver);
        },
        Qt::QueuedConnection);
  });
  return id;
}

void JobRunner::finish(JobId id, const std::function<void()>& deliver) {
  const Job job = jobs_.take(id);
  disconnect(job.on_context_death);
  const bool newest = job.slot.isEmpty() || current_.value(job.slot) == id;
  if (newest) current_.remove(job.slot);
  const bool delivered = newest && !job.cancel->load() && job.context && deliver;
  qCDebug(lcJobs) << "job" << id << (delivered ? "delivered" : "dropped") << "in" << job.slot;
  if (delivered) deliver();
  emit jobFinished(id, job.slot, delivered);
  if (jobs_.isEmpty()) emit idle();
}

bool JobRunner::cancel(const QString& slot) {
  auto it = current_.find(slot);
  if (it == current_.end()) return false;
  if (auto job = jobs_.find(it.value()); job != jobs_.end()) job->cancel->store(true);
  qCDebug(lcJobs) << "job" << it.value() << "cancelled in" << slot;
  current_.erase(it);
  return true;
}

void JobRunner::cancelAll() {
  for (auto& job : jobs_) job.cancel->store(true);
  current_.clear();
}

bool JobRunner::isRunning(const QString& slot) const { return current_.contains(slot); }

QStringList JobRunner::runningTitles() const {
  QList<JobId> ids = jobs_.keys();
  std::sort(ids.begin(), ids.end());
  QStringList out;
  for (JobId id : ids) {
    const Job& job = *jobs_.constFind(id);
    out << job.slot + QStringLiteral(": ") + job.title;
  }
  return out;
}

}  // namespace sawtooth::app
