#pragma once
// Loads a trace and builds its analysis on a worker thread (QtConcurrent), reporting progress
// (0..1000) and honouring cancel(). Results arrive by signal on the thread that owns the job.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "core/analysis/trace_analysis.h"

namespace sawtooth::views {

struct LoadResult {
  std::shared_ptr<const TraceAnalysis> analysis;
  QString error;  // empty on success; "cancelled" when cancelled
};

class TraceLoadJob : public QObject {
  Q_OBJECT
 public:
  explicit TraceLoadJob(QString path, QObject* parent = nullptr);
  ~TraceLoadJob() override;

  void start();
  void cancel();
  const QString& path() const { return path_; }
  bool isRunning() const;

  // Runs the same work on the calling thread (headless export, tests).
  static LoadResult loadNow(const QString& path, Progress* progress = nullptr);

 signals:
  void progressChanged(int permille);
  void loaded(std::shared_ptr<const sawtooth::TraceAnalysis> analysis);
  void failed(QString message);
  void cancelled();

 private:
  QString path_;
  std::shared_ptr<std::atomic<bool>> cancel_flag_ = std::make_shared<std::atomic<bool>>(false);
  QFutureWatcher<LoadResult> watcher_;
};

}  // namespace sawtooth::views
