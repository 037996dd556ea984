#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "app/sawtooth-trace/allocator_commands.h"
#include "core/analysis/trace_diff.h"
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
}

int runDiffCommand(const DiffOptions& o, const ReadLimits& limits) {
  if (o.runs.size() > 2) {
    fmt::print(stderr, "sawtooth-trace diff: --run at most twice (A's run, then B's)\n");
    return 2;
  }
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
