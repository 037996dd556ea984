#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "app/sawtooth-trace/allocator_commands.h"
#include "core/analysis/trace_diff.h"
#include "core/io/file_moments.h"
#include "core/io/allocator_json.h"
#include "core/io/trace_loader.h"
#include "core/util/printable.h"

namespace sawtooth::cli {
namespace {

int fail(const std::string& message) {
  fmt::print(stderr, "sawtooth-trace: {}\n", printable(message));
  return 1;
}

}  // namespace

void addDiffCommand(CLI::App& app, DiffOptions& o) {
  o.command = app.add_subcommand("diff", "Compare two traces by call site (or by module): bytes alive at each peak "
                                         "and bytes allocated, sorted by growth");
  o.command->add_option("A", o.a, "the first trace")->required();
  o.command->add_option("B", o.b, "the second trace (may be A again, with two --run)")->required();
  o.command->add_option("--run", o.runs, "a run by name or index: once for both sides, twice for A's then B's")
      ->allow_extra_args(false);
  o.command->add_option("--by", o.by, "match allocations by call site (the default) or by module")
      ->check(CLI::IsMember({"site", "module"}));
  o.command->add_flag("--json", o.json, "print one JSON object");
  o.command->add_flag("--summaries", o.summaries,
                      "A and B are .sawtooth files of any length: each peak replayed from the file's summaries and the "
                      "nearest allocator state it stores (what each site allocated over the trace is not counted "
                      "unless --totals)");
  o.command->add_flag("--totals", o.totals,
                      "with --summaries: also count what each site allocated over each file (one pass over every "
                      "event of the peak's device, in memory bounded by the sites)");
}

namespace {

int diffFromSummaries(const DiffOptions& o, const ReadLimits& limits) {
  if (!o.runs.empty()) {
    fmt::print(stderr, "sawtooth-trace diff: --run needs every event of the trace (not with --summaries)\n");
    return 2;
  }
  struct Side {
    std::optional<FileMoments> file;
    std::optional<SummaryMoment> moment;
    std::optional<std::vector<AllocatedTotal>> totals;
  } sides[2];
  const std::string* paths[2] = {&o.a, &o.b};
  for (int i = 0; i < 2; ++i) {
    auto file = openFileMoments(*paths[i], limits);
    if (!file) return fail(file.error().message);
    sides[i].file = std::move(*file);
    auto device = sides[i].file->largestPeakDevice();
    if (!device) return fail(device.error().message);
    if (!*device) return fail(fmt::format("{}: no allocator events on any device", *paths[i]));
    auto moment = sides[i].file->at(**device, std::nullopt);
    if (!moment) return fail(moment.error().message);
    sides[i].moment = std::move(*moment);
    if (o.totals) {
      auto totals = allocatedTotalsFromSummaries(sides[i].file->model->source(), **device);
      if (!totals) return fail(totals.error().message);
      sides[i].totals = std::move(*totals);
    }
  }
  auto input = [&](int i, const std::string& path) {
    return DiffInput{&sides[i].file->tables(), &*sides[i].moment, path, {}, sides[i].totals ? &*sides[i].totals : nullptr};
  };
  auto diff = diffInputs(input(0, o.a), input(1, o.b),
                         o.by == "module" ? DiffBy::Module : DiffBy::Site);
  if (!diff) return fail(diff.error().message);
  if (o.json) std::cout << diffJson(*diff) << "\n";
  else std::cout << diffText(*diff);
  return 0;
}

}  // namespace

int runDiffCommand(const DiffOptions& o, const ReadLimits& limits) {
  if (o.runs.size() > 2) {
    fmt::print(stderr, "sawtooth-trace diff: --run at most twice (A's run, then B's)\n");
    return 2;
  }
  if (o.totals && !o.summaries) {
    fmt::print(stderr, "sawtooth-trace diff: --totals goes with --summaries (a trace read whole always has them)\n");
    return 2;
  }
  if (o.summaries) return diffFromSummaries(o, limits);
  auto a = loadTrace(o.a, nullptr, limits);
  if (!a) return fail(a.error().message);
  std::optional<Result<Trace>> b;  // B is loaded only when it is another file
  if (o.b != o.a) {
    b = loadTrace(o.b, nullptr, limits);
    if (!*b) return fail(b->error().message);
  }
  const Trace& tb = b ? b->value() : *a;
  const std::string run_a = o.runs.empty() ? std::string() : o.runs.front();
  const std::string run_b = o.runs.empty() ? std::string() : o.runs.back();
  auto diff = diffTraces(*a, o.a, tb, o.b, run_a, run_b, o.by == "module" ? DiffBy::Module : DiffBy::Site);
  if (!diff) return fail(diff.error().message);
  if (o.json) std::cout << diffJson(*diff) << "\n";
  else std::cout << diffText(*diff);
  return 0;
}

}  // namespace sawtooth::cli
