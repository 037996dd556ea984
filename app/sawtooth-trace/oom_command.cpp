#include <iostream>

#include <fmt/format.h>

#include "app/sawtooth-trace/allocator_commands.h"
#include "core/analysis/allocator_history.h"
#include "core/analysis/summary_report.h"
#include "core/analysis/trace_analysis.h"
#include "core/io/file_moments.h"
#include "core/io/oom_json.h"
#include "core/io/trace_loader.h"
#include "core/util/printable.h"

namespace sawtooth::cli {
namespace {

int fail(const std::string& message) {
  fmt::print(stderr, "sawtooth-trace: {}\n", printable(message));
  return 1;
}

int print(const OomOptions& o, const OomDocument& doc) {
  if (o.json) std::cout << oomJson(doc) << "\n";
  else std::cout << oomText(doc);
  return 0;
}

// One pass over the allocator events for the first OOM, then its moment replayed from the nearest
// stored allocator state, as the app does for a file past its budget.
int oomFromSummaries(const OomOptions& o, const ReadLimits& limits) {
  auto file = openFileMoments(o.file, limits);
  if (!file) return fail(file.error().message);
  const Trace& tables = file->tables();
  auto facts = wholeTraceFacts(file->model->source(), tables);
  if (!facts) return fail(fmt::format("{}: {}", o.file, facts.error().message));
  OomDocument doc;
  doc.file = o.file;
  doc.oom_events = facts->ooms;
  TraceReport report;
  if (Status st = addWholeTraceFigures(report, *file->model, tables, *facts); !st)
    return fail(fmt::format("{}: {}", o.file, st.error().message));
  doc.report = std::move(report.oom);
  if (!doc.report) return print(o, doc);
  auto moment = file->at(doc.report->device, doc.report->index, nullptr, true);
  if (!moment) return fail(fmt::format("{}: {}", o.file, moment.error().message));
  if (auto map = segmentMapOf(tables, *moment); map && map->oom) doc.explanation = std::move(map->oom);
  else doc.why_unexplained = moment->why_no_state;
  return print(o, doc);
}

}  // namespace

void addOomCommand(CLI::App& app, OomOptions& o) {
  o.command = app.add_subcommand("oom", "The first out-of-memory: what was asked for and free, why the allocator "
                                        "could not place it, and the largest blocks alive then");
  o.command->add_option("FILE", o.file, "trace file")->required();
  o.command->add_flag("--json", o.json, "print one JSON object");
  o.command->add_flag("--summaries", o.summaries,
                      "a .sawtooth file of any length: one pass over its allocator events (memory bounded by the "
                      "devices) finds the first out-of-memory, whose moment replays from the nearest allocator "
                      "state the file stores");
}

int runOomCommand(const OomOptions& o, const ReadLimits& limits) {
  if (o.summaries) return oomFromSummaries(o, limits);
  auto loaded = loadTrace(o.file, nullptr, limits);
  if (!loaded) return fail(loaded.error().message);
  auto trace = std::make_shared<const Trace>(std::move(*loaded));
  const TraceAnalysis analysis(trace);
  OomDocument doc;
  doc.file = o.file;
  for (const auto& d : analysis.devices()) doc.oom_events += d->oom_events.size();
  doc.report = oomReport(analysis);
  if (!doc.report) return print(o, doc);
  ReplayOptions options;
  options.series = false;
  auto history = AllocatorHistory::build(*trace, doc.report->device, options);
  if (history) {
    SiteNamer names(trace->stacks);
    doc.explanation = explainOom(*trace, *history, doc.report->index, names);
  } else {
    doc.why_unexplained = history.error().message;
  }
  return print(o, doc);
}

}  // namespace sawtooth::cli
