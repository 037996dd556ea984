// sawtooth-trace: the headless side of Sawtooth. Reads every trace format the app reads.
//   info FILE [--json] [--summaries]       counts, peaks, runs (--summaries: a .sawtooth's figures from
//                                          its summaries alone, in bounded time and memory at any length)
//   convert IN OUT.sawtooth                save as the native format (a .sawtooth of an older format
//                                          is copied and summarised without reading it whole)
//   check FILE                             compare a .sawtooth file's summaries with its events
//   export IN --csv series|events OUT.csv  data for spreadsheets and pandas
//   export IN --chrome-trace OUT.json      counter tracks for Perfetto
//   segments FILE [--at EVENT] [--device D] [--json]   the allocator's segments (allocator_commands.h)
//   oom FILE [--json] [--summaries]        the first out-of-memory: asked, free, why, the blocks alive
//   modules FILE [--at peak|end|EVENT] [--depth N] [--device D] [--json]   the bytes each module holds
//   diff A B [--run X [--run Y]] [--by site|module] [--json]  what changed, by call site or module
//   ladder FILE [--device-memory SIZE] [--measured FILE]... [--json]   each rung's predicted peak and time
// Every command reads within limits (--max-memory SIZE, --limit NAME=VALUE); exceeding one is an
// error that names the limit.
// Exit codes: 0 ok, 1 unreadable input or failed output, 2 bad arguments.

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/sawtooth-trace/allocator_commands.h"
#include "core/analysis/trace_summary.h"
#include "core/io/chrome_trace_export.h"
#include "core/io/csv_export.h"
#include "core/io/native_format.h"
#include "core/io/native_summary_info.h"
#include "core/io/output_claim.h"
#include "core/model/recording_status.h"
#include "core/io/read_limits.h"
#include "core/io/summary_cache.h"
#include "core/io/summary_json.h"
#include "core/io/trace_convert.h"
#include "core/io/trace_loader.h"
#include "core/model/meta_keys.h"
#include "core/util/printable.h"

namespace {

constexpr int kExitInput = 1, kExitUsage = 2;

int failWith(const sawtooth::Error& error) {
  // Messages quote the file (a name, a value): printed with its control characters escaped.
  fmt::print(stderr, "sawtooth-trace: {}\n", sawtooth::printable(error.message));
  return kExitInput;
}

// `check`: the summaries against the events; 0 when they agree, 1 when they did not (the cache
// has them now) or the file cannot be read.
int runCheck(const std::string& path) {
  std::string why;
  auto found = sawtooth::findSummaries(path, &why);
  if (!found) return failWith(found.error());
  sawtooth::SummaryPlace place;
  if (*found) {
    place = **found;
  } else {
    fmt::print("{}: {}: building its summaries into the cache\n", path, why);
    auto built = sawtooth::buildCachedSummaries(path, why);
    if (!built) return failWith(built.error());
    place = *built;
  }
  auto verdict = sawtooth::verifySummaries(place);
  if (!verdict) return failWith(verdict.error());
  const auto& c = verdict->check;
  const std::string where = place.cached ? fmt::format("the summaries in {}", place.summaries) : "its summaries";
  if (!verdict->rebuilt) {
    fmt::print("{}: {} agree with its {} events\n", path, where, c.events);
    return 0;
  }
  fmt::print("{}: {} disagree with its events ({} rows differ", path, where, c.differences);
  for (const std::string& d : c.first_differences) fmt::print("; {}", d);
  fmt::print("); built again from the events into {}\n", verdict->rebuilt->summaries);
  return kExitInput;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sawtooth-trace: inspect, convert and export GPU memory traces "
               "(PyTorch snapshots, torch.profiler traces, .sawtooth files)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sawtooth-trace " SAWTOOTH_VERSION));

  std::string input, output, csv_kind, chrome_out, max_memory;
  std::vector<std::string> limit_args;
  bool as_json = false, from_summaries = false;
  // The reading limits, on every command.
  auto addLimits = [&](CLI::App* command) {
    command->add_option("--max-memory", max_memory,
                        "memory the reader may use for the file, e.g. 8G (default: 3/4 of RAM or of ulimit -v)");
    command->add_option("--limit", limit_args,
                        fmt::format("raise or lower one reading limit, NAME=VALUE (repeatable); names: {}",
                                    fmt::join(sawtooth::limitNames(), ", ")));
  };

  auto* info = app.add_subcommand("info", "Summarise a trace: events, actions, peaks per device, runs");
  info->add_option("FILE", input, "trace file")->required();
  info->add_flag("--json", as_json, "print one JSON object");
  info->add_flag("--summaries", from_summaries,
                 "a .sawtooth file: read its summaries only, not its events (any length in a fraction of a second; "
                 "no action counts, block peak or memory-order check)");
  addLimits(info);

  auto* convert = app.add_subcommand("convert", "Save a trace as a .sawtooth file (SQLite)");
  convert->add_option("IN", input, "trace file")->required();
  convert->add_option("OUT", output, "output .sawtooth file")->required();
  addLimits(convert);

  auto* check = app.add_subcommand(
      "check", "Compare a .sawtooth file's summaries with its events (reading every event once); when they disagree, "
               "build them into the cache (the file is never written)");
  check->add_option("FILE", input, ".sawtooth file")->required();

  auto* exporter = app.add_subcommand("export", "Export series or events as CSV, or counter tracks as Chrome trace JSON");
  exporter->add_option("IN", input, "trace file")->required();
  auto* csv_opt = exporter->add_option("--csv", csv_kind, "what to export as CSV")->check(CLI::IsMember({"series", "events"}));
  auto* chrome_opt = exporter->add_option("--chrome-trace", chrome_out, "write a Chrome trace JSON (opens in Perfetto)");
  exporter->add_option("OUT", output, "output CSV file (with --csv)");
  csv_opt->excludes(chrome_opt);
  addLimits(exporter);

  sawtooth::cli::SegmentsOptions segments;
  sawtooth::cli::addSegmentsCommand(app, segments);
  addLimits(segments.command);
  sawtooth::cli::OomOptions oom;
  sawtooth::cli::addOomCommand(app, oom);
  addLimits(oom.command);
  sawtooth::cli::ModulesOptions modules;
  sawtooth::cli::addModulesCommand(app, modules);
  addLimits(modules.command);
  sawtooth::cli::DiffOptions diff;
  sawtooth::cli::addDiffCommand(app, diff);
  addLimits(diff.command);  // each of the two files within them
  sawtooth::cli::LadderCommandOptions ladder;
  sawtooth::cli::addLadderCommand(app, ladder);
  addLimits(ladder.command);

  app.footer("Exit codes: 0 ok, 1 unreadable input or failed output, 2 bad arguments.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // app.exit prints the help, the version or the error; CLI11's own error codes (104-109) are ours: 2.
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  if (exporter->parsed()) {
    if (csv_kind.empty() && chrome_out.empty()) {
      fmt::print(stderr, "sawtooth-trace export: choose --csv series|events OUT.csv or --chrome-trace OUT.json\n");
      return kExitUsage;
    }
    if (!csv_kind.empty() && output.empty()) {
      fmt::print(stderr, "sawtooth-trace export: --csv {} needs an output file\n", csv_kind);
      return kExitUsage;
    }
  }

  sawtooth::ReadLimits limits;
  if (!max_memory.empty()) {
    const auto bytes = sawtooth::parseByteSize(max_memory);
    if (!bytes || *bytes == 0) {
      fmt::print(stderr, "sawtooth-trace: --max-memory takes a size such as 512M or 8G, not '{}'\n", max_memory);
      return 2;
    }
    limits.max_memory = *bytes;
  }
  for (const std::string& assignment : limit_args) {
    if (sawtooth::Status st = sawtooth::setLimit(limits, assignment); !st) {
      fmt::print(stderr, "sawtooth-trace: {}\n", st.error().message);
      return 2;
    }
  }
  if (segments.command->parsed()) return sawtooth::cli::runSegmentsCommand(segments, limits);
  if (oom.command->parsed()) return sawtooth::cli::runOomCommand(oom, limits);
  if (modules.command->parsed()) return sawtooth::cli::runModulesCommand(modules, limits);
  if (check->parsed()) return runCheck(input);
  if (convert->parsed()) {
    // A PyTorch snapshot streams into the file (memory bounded by the summaries, not the events); a
    // .sawtooth of an older format is copied and summarised; anything else is read whole, then written.
    if (sawtooth::Status st = sawtooth::convertTrace(input, output, limits); !st) return failWith(st.error());
    return 0;
  }
  if (diff.command->parsed()) return sawtooth::cli::runDiffCommand(diff, limits);
  if (ladder.command->parsed()) return sawtooth::cli::runLadderCommand(ladder, limits);
  if (info->parsed() && from_summaries) {
    if (!sawtooth::isNativeFile(input)) {
      fmt::print(stderr, "sawtooth-trace info --summaries: {} is not a .sawtooth file (convert it first: `sawtooth-trace "
                         "convert IN OUT.sawtooth`)\n", sawtooth::printable(input));
      return kExitInput;
    }
    auto figures = sawtooth::readSummaryInfo(input, limits);
    if (!figures) return failWith(figures.error());
    std::cout << (as_json ? sawtooth::summaryInfoJson(*figures) + "\n" : sawtooth::summaryInfoText(*figures));
    std::cout.flush();
    return std::cout.good() ? 0 : kExitInput;
  }
  auto trace = sawtooth::loadTrace(input, nullptr, limits);
  if (!trace) {
    // A recording past the memory budget still has its figures: say where.
    if (info->parsed() && sawtooth::isNativeFile(input))
      return failWith(sawtooth::Error{trace.error().message + " (`sawtooth-trace info --summaries` reads its figures "
                                                              "from its summaries, in bounded memory)"});
    return failWith(trace.error());
  }

  if (info->parsed()) {
    // A recording still being written says so, not what a killed one would.
    if (sawtooth::isBeingWritten(input)) {
      trace->meta[std::string(sawtooth::meta::kIncompleteReason)] = sawtooth::kStillRecording;
      trace->meta.erase(std::string(sawtooth::meta::kIncompleteDetail));
    }
    const auto summary = sawtooth::summarize(*trace);
    if (as_json) std::cout << sawtooth::summaryJson(*trace, summary) << "\n";
    else std::cout << sawtooth::summaryText(*trace, summary);
    // Done: the process ends without taking apart a trace of millions of events piece by piece
    // (the system reclaims it at once); output is flushed first.
    std::cout.flush();
    std::fflush(stdout);
    std::_Exit(std::cout.good() ? 0 : kExitInput);
  }
  if (!csv_kind.empty()) {
    if (sawtooth::Status st = sawtooth::exportCsv(*trace, csv_kind, output); !st) return failWith(st.error());
    return 0;
  }
  if (sawtooth::Status st = sawtooth::exportChromeTrace(*trace, chrome_out); !st) return failWith(st.error());
  return 0;
}
