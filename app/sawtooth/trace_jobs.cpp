#include "app/sawtooth/trace_jobs.h"

#include <QFile>
#include <QImageWriter>

#include "core/io/csv_export.h"
#include "core/io/trace_loader.h"

namespace sawtooth::app {

Result<std::shared_ptr<const TraceReport>> loadTraceReport(const std::string& path, Progress& progress,
                                                            const ReadLimits& limits) {
  // Reading is most of the bar, the analysis and the report the rest.
  Progress reading = progress.sub(0, 850);
  auto trace = loadTrace(path, &reading, limits);
  if (!trace) return trace.error();
  if (progress.cancelled()) return Error{"cancelled"};
  Progress analysing = progress.sub(850, 990);
  auto analysis = std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(std::move(*trace)), &analysing);
  if (progress.cancelled()) return Error{"cancelled"};
  auto report = buildTraceReport(std::move(analysis));
  progress.report(1000, 1000);
  return report;
}

Result<Ok> exportTraceCsv(const std::shared_ptr<const Trace>& trace, const std::string& what, const std::string& path,
                          Progress& progress) {
  return exportCsv(*trace, what, path, &progress);
}

Result<Ok> exportEventRowsCsv(const std::shared_ptr<const Trace>& trace, const EventRows& rows, const std::string& path,
                              Progress& progress) {
  return sawtooth::exportEventRowsCsv(*trace, rows.rows.get(), path, &progress);
}

Result<Ok> exportTableCsv(const std::shared_ptr<const Table>& table, const std::string& path) {
  return sawtooth::exportTableCsv(*table, path);
}

Result<Ok> writePng(const QImage& image, const QString& path) {
  QImageWriter writer(path, "png");
  if (image.isNull()) return Error{path.toStdString() + ": nothing to draw"};
  if (!writer.write(image)) return Error{QStringLiteral("%1: %2").arg(path, writer.errorString()).toStdString()};
  return Ok{};
}

Result<Ok> writeFile(const QByteArray& bytes, const QString& path) {
  QFile f(path);
  if (bytes.isEmpty()) return Error{path.toStdString() + ": nothing to draw"};
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
    return Error{QStringLiteral("%1: cannot create (%2)").arg(path, f.errorString()).toStdString()};
  if (f.write(bytes) != bytes.size() || !f.flush())
    return Error{QStringLiteral("%1: write failed (%2)").arg(path, f.errorString()).toStdString()};
  return Ok{};
}

}  // namespace sawtooth::app
