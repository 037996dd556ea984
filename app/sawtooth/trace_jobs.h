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
