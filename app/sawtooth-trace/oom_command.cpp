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

// The first OOM from the summaries' index (a file written before it had one: one pass over the
// allocator events), then its moment replayed from the nearest stored allocator state, as the app
// does for a file past its budget; the moment's segment map explains it.
int oomFromSummaries(const OomOptions& o, const ReadLimits& limits) {
  auto file = openFileMoments(o.file, limits);
  if (!file) return fail(file.error().message);
  const Trace& tables = file->tables();
  auto indexed = indexedOoms(file->model->source());
  if (!indexed) return fail(fmt::format("{}: {}", o.file, indexed.error().message));
  std::optional<WholeTraceFacts> facts = std::move(*indexed);
  if (!facts) {
    auto counted = wholeTraceFacts(file->model->source(), tables);
    if (!counted) return fail(fmt::format("{}: {}", o.file, counted.error().message));
    facts = std::move(*counted);
  }
  OomDocument doc;
  doc.file = o.file;
  doc.oom_events = facts->ooms;
  if (!facts->first_oom) return print(o, doc);
  auto post_mortem = oomPostMortem(*file->model, tables, *facts->first_oom);
  if (!post_mortem) return fail(fmt::format("{}: {}", o.file, post_mortem.error().message));
  doc.report = std::move(post_mortem->report);
  if (auto map = segmentMapOf(tables, post_mortem->moment); map && map->oom) doc.explanation = std::move(map->oom);
  else doc.why_unexplained = post_mortem->moment.why_no_state;
  return print(o, doc);
}

}  // namespace

void addOomCommand(CLI::App& app, OomOptions& o) {
  o.command = app.add_subcommand("oom", "The first out-of-memory: what was asked for and free, why the allocator "
                                        "could not place it, and the largest blocks alive then");
  o.command->add_option("FILE", o.file, "trace file")->required();
  o.command->add_flag("--json", o.json, "print one JSON object");
  o.command->add_flag("--summaries", o.summaries,
                      "a .sawtooth file of any length: its summaries' index finds the first out-of-memory (a file "
                      "written before it had one: one pass over its allocator events, memory bounded by the "
                      "devices), whose moment replays from the nearest allocator state the file stores");
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
