#include "views/trace_load_job.h"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include "core/io/trace_loader.h"

namespace sawtooth::views {

TraceLoadJob::TraceLoadJob(QString path, QObject* parent) : QObject(parent), path_(std::move(path)) {
  connect(&watcher_, &QFutureWatcher<LoadResult>::finished, this, [this] {
    const LoadResult result = watcher_.result();
    if (cancel_flag_->load()) emit cancelled();
    else if (result.analysis) emit loaded(result.analysis);
    else emit failed(result.error);
  });
}

TraceLoadJob::~TraceLoadJob() {
  cancel_flag_->store(true);
  watcher_.waitForFinished();
}

bool TraceLoadJob::isRunning() const { return watcher_.isRunning(); }

void TraceLoadJob::cancel() { cancel_flag_->store(true); }

LoadResult TraceLoadJob::loadNow(const QString& path, Progress* progress) {
  // Loading is 90 % of the bar, the analysis the rest.
  Progress loading = progress ? progress->sub(0, 900) : Progress();
  auto trace = loadTrace(path.toStdString(), progress ? &loading : nullptr);
  if (!trace) return {nullptr, QString::fromStdString(trace.error().message)};
  Progress analysing = progress ? progress->sub(900, 1000) : Progress();
  auto analysis = std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(std::move(*trace)),
                                                        progress ? &analysing : nullptr);
  if (progress && progress->cancelled()) return {nullptr, QStringLiteral("cancelled")};
  return {analysis, {}};
}

void TraceLoadJob::start() {
  QPointer<TraceLoadJob> self(this);
  auto flag = cancel_flag_;
  const QString path = path_;
  watcher_.setFuture(QtConcurrent::run([self, flag, path] {
    Progress progress(
        [self](int permille) {
          QMetaObject::invokeMethod(
              self, [self, permille] { if (self) emit self->progressChanged(permille); }, Qt::QueuedConnection);
        },
        flag.get());
    return loadNow(path, &progress);
  }));
}

}  // namespace sawtooth::views
