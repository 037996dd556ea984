#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "app/sawtooth-trace/allocator_commands.h"
#include "core/analysis/ladder.h"
#include "core/analysis/ladder_measured.h"
#include "core/model/meta_keys.h"
#include "core/io/ladder_json.h"
#include "core/io/read_limits.h"
#include "core/io/source_lines.h"
#include "core/io/trace_loader.h"

namespace sawtooth::cli {
namespace {

int fail(const std::string& message) {
  fmt::print(stderr, "sawtooth-trace: {}\n", message);
  return 1;
}

}  // namespace

void addLadderCommand(CLI::App& app, LadderCommandOptions& o) {
  o.command = app.add_subcommand(
      "ladder", "The seed's ladder for a recorded program: each rung's predicted peak and step time with its reasoning, "
                "beside measured runs of the rung where there are any");
  o.command->add_option("FILE", o.file, "the recording to predict from")->required();
  o.command->add_option("--run", o.run, "the run to start from (default: the first that is not a check)");
  o.command->add_option("--device", o.device, "the device (default: the one whose allocations peak highest)");
  o.command->add_option("--measured", o.measured,
                        "a recording of the same program with a rung applied (sawtooth-record --rung, or a workload's "
                        "runs), as FILE or FILE=RUNG when the file does not say which rung it measures (RUNG as the "
                        "JSON's ids: bf16, checkpoint:every=1, zero1:N=2, ...); repeatable. FILE's own other runs are "
                        "always looked at");
  o.command->add_option("--device-memory", o.device_memory,
                        "judge what fits against this much memory, e.g. 24G (default: the recorded device's)");
  o.command->add_option("--shard-devices", o.shard_devices, "devices for the sharding rungs (default: the run's world size, or 2)")
      ->check(CLI::Range(2, 4096));
  o.command->add_option("--link-bandwidth", o.link_bandwidth,
                        "GB/s a ring all-reduce reaches between the devices (NCCL's bus bandwidth), for the sharding "
                        "rungs' step time from a one-device recording (default: from the device's name where known: "
                        "NVLink 4 as measured on two H200s, others scaled from it)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            // CLI::Range lets NaN through (every comparison with it is false), and a NaN here was
            // taken as not asked: the device's own link, silently.
            const double v = std::strtod(text.c_str(), nullptr);
            if (std::isfinite(v) && v >= 0.001 && v <= 100000.0) return {};
            return "GB/s from 0.001 to 100000 (NCCL's bus bandwidth, e.g. 180), not '" + text + "'";
          },
          "GB/s in [0.001 - 100000]"));
  o.command->add_flag("--json", o.json, "print one JSON object");
  o.command->add_flag("--no-source", o.no_source,
                      "do not read the Python lines the recording's stacks name (by default the bf16 rung reads them, "
                      "where they exist on this machine, to tell which ops stay 4-byte)");
}

int runLadderCommand(const LadderCommandOptions& o, const ReadLimits& limits) {
  LadderOptions options;
  if (!o.device_memory.empty()) {
    const auto bytes = parseByteSize(o.device_memory);
    if (!bytes || *bytes == 0) {
      fmt::print(stderr, "sawtooth-trace ladder: --device-memory takes a size such as 24G or 80G, not '{}'\n", o.device_memory);
      return 2;
    }
    // A bare number is bytes: "--device-memory 24" meant 24 GB, and judged against 24 bytes every
    // rung "does not fit". No device is that small, so say so rather than answer it.
    if (*bytes < (uint64_t{1} << 20) && o.device_memory.find_first_not_of("0123456789") == std::string::npos) {
      fmt::print(stderr,
                 "sawtooth-trace ladder: --device-memory {0} is {0} bytes; write a unit, e.g. {0}G for {0} GiB or "
                 "{0}M for {0} MiB\n",
                 o.device_memory);
      return 2;
    }
    options.device_memory = static_cast<int64_t>(*bytes);
  }
  options.shard_devices = o.shard_devices;
  options.link_gb_per_s = o.link_bandwidth;
  LadderSelection selection;
  selection.run = o.run;
  auto sources = std::make_shared<SourceLines>();
  if (!o.no_source)
    selection.source = [sources](std::string_view file, uint32_t line) { return sources->line(file, line); };
  if (!o.device.empty()) {
    if (o.device == "cpu") {
      selection.device = kCpuDevice;
    } else {
      const std::string digits = o.device.rfind("cuda:", 0) == 0 ? o.device.substr(5) : o.device;
      try {
        size_t used = 0;
        const int d = std::stoi(digits, &used);
        if (used != digits.size()) throw std::invalid_argument(digits);
        selection.device = d;
      } catch (const std::exception&) {
        fmt::print(stderr, "sawtooth-trace ladder: --device takes cpu, N or cuda:N, not '{}'\n", o.device);
        return 2;
      }
    }
  }
  auto trace = loadTrace(o.file, nullptr, limits);
  if (!trace) return fail(trace.error().message);
  auto input = ladderInput(*trace, selection);
  if (!input) return fail(o.file + ": " + input.error().message);
  LadderReport report = predictLadder(*input, options);
  std::vector<MeasuredRung> measured = measuredRungs(*input, *trace, o.file, true);
  for (const std::string& spec : o.measured) {
    // FILE=RUNG: RUNG is a row id (which may hold '=' itself: zero1:N=2), after the file's last slash.
    std::string path = spec, rung;
    const size_t slash = spec.rfind('/');
    for (size_t eq = spec.find('=', slash == std::string::npos ? 0 : slash); eq != std::string::npos;
         eq = spec.find('=', eq + 1))
      if (report.row(spec.substr(eq + 1)) != nullptr) {
        path = spec.substr(0, eq);
        rung = spec.substr(eq + 1);
        break;
      }
    auto other = loadTrace(path, nullptr, limits);
    if (!other) return fail(other.error().message);
    std::string file_rung = rung;
    if (auto it = other->meta.find(std::string(meta::kRung)); it != other->meta.end() && file_rung.empty())
      file_rung = it->second;
    if (path != o.file)
      for (const Run& run : other->runs)
        if (const std::string why = otherProgram(*input, run); !why.empty() && !rungOfRun(run, file_rung).empty())
          fmt::print(stderr, "sawtooth-trace ladder: {}: run '{}' may not record the same program as {} ({}); put "
                             "beside the prediction as asked\n", path, run.name, o.file, why);
    for (MeasuredRung& m : measuredRungs(*input, *other, path, path == o.file, rung)) measured.push_back(std::move(m));
  }
  attachMeasured(report, measured);
  if (o.json) std::cout << ladderJson(report, o.file) << "\n";
  else std::cout << ladderText(report);
  return 0;
}

}  // namespace sawtooth::cli
