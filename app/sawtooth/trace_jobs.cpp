#include "app/sawtooth/trace_jobs.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImageWriter>
#include <QStandardPaths>
#include <algorithm>
#include <cstdio>

#include "core/io/csv_export.h"
#include "core/io/file_bytes.h"
#include "core/io/native_format.h"
#include "core/io/trace_convert.h"
#include "core/io/trace_loader.h"
#include "core/model/trace_merge.h"
#include "core/recording/rank_files.h"

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

QString conversionCacheDir() {
  return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/conversions");
}

uint64_t estimatedMemoryToReadSnapshot(const std::string& path) {
  char head[16] = {};
  size_t n = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
  }
  const std::string_view start(head, n);
  // A compressed snapshot is told by its name (its first bytes say only gzip).
  const QString name = QFileInfo(QString::fromStdString(path)).fileName().toLower();
  const bool snapshot = isGzip(start) ? name.endsWith(QLatin1String(".pickle.gz")) || name.endsWith(QLatin1String(".pkl.gz"))
                                      : detectFormat(start) == TraceFormat::PytorchSnapshot;
  if (!snapshot) return 0;
  // Measured: the whole trace of a 2.08 GB snapshot with Python stacks (20 M events) is about 2.2 GB,
  // its analysis as much again (bench/results/cpu-convert-stream-2026-12-02.md).
  return conversionInputBytes(path) / 2 * 5;
}

Result<std::string> convertSnapshotIntoCache(const std::string& path, const std::string& cache_dir, Progress& progress,
                                             const ReadLimits& limits) {
  return convertIntoCache(cache_dir, path, limits, &progress);
}

std::vector<std::pair<int, std::string>> leftRankFiles(const std::string& out) {
  const QFileInfo info(QString::fromStdString(out));
  QString stem = info.fileName();
  if (stem.endsWith(QLatin1String(".sawtooth"))) stem.chop(9);
  std::vector<std::pair<int, std::string>> ranks;
  const QDir dir = info.absoluteDir();
  for (const QString& name : dir.entryList({stem + QStringLiteral(".rank*.sawtooth")}, QDir::Files)) {
    const auto parsed = recording::parseRankFileName(name.toStdString());
    if (parsed && QString::fromStdString(parsed->stem) == stem) ranks.emplace_back(parsed->rank, dir.filePath(name).toStdString());
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

Result<Ok> mergeLeftRanks(const std::vector<std::pair<int, std::string>>& ranks, const std::string& out, Progress& progress) {
  std::vector<RankTrace> traces;
  for (size_t i = 0; i < ranks.size(); ++i) {
    Progress reading = progress.sub(static_cast<int>(800 * i / ranks.size()), static_cast<int>(800 * (i + 1) / ranks.size()));
    auto trace = loadTrace(ranks[i].second, &reading);
    if (!trace) return Error{"rank " + std::to_string(ranks[i].first) + ": " + trace.error().message};
    if (progress.cancelled()) return Error{"cancelled"};
    traces.push_back(RankTrace{ranks[i].first, std::move(*trace)});
  }
  auto merged = mergeRankTraces(traces);
  if (!merged) return merged.error();
  traces.clear();
  if (Status st = writeNative(*merged, out); !st) return st.error();
  progress.report(1000, 1000);
  return Ok{};
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
