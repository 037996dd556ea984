#pragma once
// The app's one job runner: loading, comparison, rank lanes, filtering and sorting, and every
// export run here, off the GUI thread (hotspot's pattern). A job has an id, reports progress on a
// 0..1000 scale, and can be cancelled; a job started in a slot that already has one supersedes it
// (the older is cancelled and its result dropped), so only the newest request of a kind — the
// latest filter text, the latest sort — ever reaches a view. Results come back by value on the GUI
// thread, where views receive them through setters.
//
// To add a kind of work: write the work as a plain function of its inputs (by value) and a
// Progress, returning a Result<T> (errors are values); run it here with a slot naming what it
// replaces ("tab 3: events") and a context object whose death cancels it; hand the T to the view's
// setter in `done`. See TraceController for the pattern.

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>

#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth::app {

class JobRunner : public QObject {
  Q_OBJECT
 public:
  using JobId = quint64;

  explicit JobRunner(QObject* parent = nullptr);
  ~JobRunner() override;  // cancels every job and waits for the workers

  // Runs work(progress) on a worker thread; `done` gets its result on the GUI thread — unless the
  // job was cancelled, superseded, or `context` (null: the runner) is gone; then the result is
  // dropped. `failed`
  // (optional) gets an error's message the same way. Exceptions in work become errors.
  template <typename T>
  JobId run(const QString& slot, const QString& title, QObject* context, std::function<Result<T>(Progress&)> work,
            std::function<void(T)> done, std::function<void(QString)> failed = {},
            std::function<void(int)> progress = {}) {
    auto erased = [work = std::move(work), done = std::move(done), failed = std::move(failed)](
                      Progress& p) -> std::function<void()> {
      auto result = std::make_shared<Result<T>>(Error{"the job did not run"});
      try {
        *result = work(p);
      } catch (const std::exception& e) {
        *result = Error{e.what()};
      }
      if (result->ok()) return [done, result] { done(std::move(**result)); };
      if (!failed) return {};
      return [failed, result] { failed(QString::fromStdString(result->error().message)); };
    };
    return start(slot, title, context, std::move(erased), std::move(progress));
  }

  // Cancels the slot's job (its result is dropped); false when the slot has none.
  bool cancel(const QString& slot);
  void cancelAll();
  bool isRunning(const QString& slot) const;
  bool isIdle() const { return jobs_.isEmpty(); }
  int running() const { return static_cast<int>(jobs_.size()); }
  QStringList runningTitles() const;  // "slot: title" of each job not yet finished, oldest first

 signals:
  void jobStarted(quint64 id, QString slot, QString title);
  void jobProgress(quint64 id, int permille);
  // delivered: the result reached its receiver (false when cancelled, superseded or failed).
  void jobFinished(quint64 id, QString slot, bool delivered);
  void idle();

 private:
  struct Job {
    QString slot;
    QString title;
    QPointer<QObject> context;
    std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
    std::function<void(int)> progress;
    QMetaObject::Connection on_context_death;
  };
  JobId start(const QString& slot, const QString& title, QObject* context,
              std::function<std::function<void()>(Progress&)> work, std::function<void(int)> progress);
  void finish(JobId id, const std::function<void()>& deliver);

  QThreadPool pool_;
  JobId next_id_ = 0;
  QHash<JobId, Job> jobs_;
  QHash<QString, JobId> current_;  // the newest job of each slot
};

}  // namespace sawtooth::app
