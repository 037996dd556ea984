#pragma once
// The work the app runs as jobs (JobRunner): plain functions of their inputs, taken by value, that
// run on any thread and return errors as values. The only place in the app that reads trace files
// and writes exports (core/io).

#include <QByteArray>
#include <QImage>
#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/event_query.h"
#include "core/analysis/table.h"
#include "core/analysis/trace_report.h"
#include "core/io/read_limits.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth::app {

// Reads the file, analyses it and builds the report every view of its tab draws from.
Result<std::shared_ptr<const TraceReport>> loadTraceReport(const std::string& path, Progress& progress,
                                                            const ReadLimits& limits = {});

// PyTorch snapshots too large to read whole (issue 25): converted once into the user's cache
// (QStandardPaths' cache location, conversions/), keyed by the snapshot's content (core's
// fileContentKey: size, modification time, first and last MiB — a few milliseconds, where hashing
// a 2 GB file whole would cost seconds on every open), then opened from the conversion.
QString conversionCacheDir();
// What reading the snapshot whole would take in memory (its trace and analysis), from its size:
// about 2.5 bytes a byte of pickle (a gzip file: of what it decompresses to); 0 when `path` is not
// a PyTorch snapshot.
uint64_t estimatedMemoryToReadSnapshot(const std::string& path);
// The conversion of `path` in `cache_dir` (made here when missing; nothing is left there when it
// fails or is cancelled).
Result<std::string> convertSnapshotIntoCache(const std::string& path, const std::string& cache_dir, Progress& progress,
                                             const ReadLimits& limits = {});

// The rank files (OUT.rankN.sawtooth) a distributed recording left beside `out` when it stopped
// before merging them (cancelled, or a rank failed), by rank; empty when there are none.
std::vector<std::pair<int, std::string>> leftRankFiles(const std::string& out);
// Merges what the ranks recorded into `out` (as the recorder does when every rank succeeds), each
// rank under its own number; the rank files stay.
Result<Ok> mergeLeftRanks(const std::vector<std::pair<int, std::string>>& ranks, const std::string& out, Progress& progress);

// "series" or "events" of the whole trace (sawtooth-trace export's formats).
Result<Ok> exportTraceCsv(const std::shared_ptr<const Trace>& trace, const std::string& what, const std::string& path,
                          Progress& progress);
// The events table as shown: its rows, in its order (every event when `rows` has none stored).
Result<Ok> exportEventRowsCsv(const std::shared_ptr<const Trace>& trace, const EventRows& rows, const std::string& path,
                              Progress& progress);
Result<Ok> exportTableCsv(const std::shared_ptr<const Table>& table, const std::string& path);
// A chart drawn on the GUI thread, encoded (PNG) and written here.
Result<Ok> writePng(const QImage& image, const QString& path);
Result<Ok> writeFile(const QByteArray& bytes, const QString& path);

}  // namespace sawtooth::app
