#include <charconv>
#include <iostream>
#include <variant>

#include <fmt/format.h>

#include "app/sawtooth-trace/allocator_commands.h"
#include "app/sawtooth-trace/device_option.h"
#include "core/analysis/allocator_history.h"
#include "core/analysis/live_allocations.h"
#include "core/analysis/module_memory.h"
#include "core/analysis/summary_module_costs.h"
#include "core/io/file_moments.h"
#include "core/io/module_json.h"
#include "core/io/trace_loader.h"
#include "core/util/printable.h"

namespace sawtooth::cli {
namespace {

int fail(const std::string& message) {
  fmt::print(stderr, "sawtooth-trace: {}\n", printable(message));
  return 1;
}

// --at: peak (empty), end, or an allocator-event index of a device with `n` of them; an exit code
// when it is none of those.
std::variant<std::optional<int64_t>, int> parseAt(const ModulesOptions& o, int64_t n, const std::string& device_name) {
  if (o.at == "peak") return std::optional<int64_t>();
  if (o.at == "end") return std::optional<int64_t>(n - 1);
  int64_t index = 0;
  auto [end, ec] = std::from_chars(o.at.data(), o.at.data() + o.at.size(), index);
  if (ec != std::errc() || end != o.at.data() + o.at.size()) {
    fmt::print(stderr, "sawtooth-trace modules: --at takes peak, end or an event index, not '{}'\n", o.at);
    return 2;
  }
  if (index < -1 || index >= n)
    return fail(fmt::format("{}: --at {} is outside {}'s allocator events (-1 to {})", o.file, index, device_name, n - 1));
  return std::optional<int64_t>(index);
}

int runFromSummaries(const ModulesOptions& o, const ReadLimits& limits) {
  auto file = openFileMoments(o.file, limits);
  if (!file) return fail(file.error().message);
  const Trace& tables = file->tables();
  if (std::string why = modulesUnavailableReason(tables); !why.empty()) return fail(fmt::format("{}: {}", o.file, why));
  std::optional<DeviceId> device;
  if (!o.device.empty()) {
    device = findDevice(tables, o.device);
    if (!device) return fail(noDeviceMessage(tables, o.file, o.device));
  } else {
    auto largest = file->largestPeakDevice();
    if (!largest) return fail(largest.error().message);
    device = *largest;
  }
  const int64_t n = device ? file->allocatorEvents(*device) : 0;
  if (n == 0) return fail(fmt::format("{}: no allocator events{}", o.file, o.device.empty() ? " on any device" : " on " + o.device));
  auto at = parseAt(o, n, tables.deviceName(*device));
  if (const int* code = std::get_if<int>(&at)) return *code;
  auto moment = file->at(*device, std::get<std::optional<int64_t>>(at));
  if (!moment) return fail(moment.error().message);
  auto modules = modulesWithStepCosts(*file->model, tables, *moment);
  if (!modules) return fail(modules.error().message);
  const ModuleMemory& memory = modules->memory;
  if (o.json) std::cout << modulesJson(tables, o.file, memory, o.depth) << "\n";
  else std::cout << modulesText(memory, o.depth);
  return 0;
}

}  // namespace

void addModulesCommand(CLI::App& app, ModulesOptions& o) {
  o.command = app.add_subcommand("modules", "The bytes each module holds at the peak (or an event), by category, "
                                            "and what its forward and backward cost");
  o.command->add_option("FILE", o.file, "trace file (a recording: PyTorch's snapshots record no modules)")->required();
  o.command->add_option("--at", o.at,
                        "peak (the default), end (after the last allocator event), or the device's allocator-event "
                        "index (0-based, as info's peak_allocated_event_index; -1: before the first)");
  o.command->add_option("--depth", o.depth, "show modules down to this depth (0: the roots), each standing for its "
                                            "submodules; default: all")
      ->check(CLI::NonNegativeNumber);
  o.command->add_option("--device", o.device, "one device: cuda:N, N or cpu (default: the one with the largest peak)");
  o.command->add_flag("--json", o.json, "print one JSON object");
  o.command->add_flag("--summaries", o.summaries, "a .sawtooth file of any length: read its summaries and, from the nearest allocator state it stores, the events up to the moment (not every event); each module's costs are over the moment's step");
}

int runModulesCommand(const ModulesOptions& o, const ReadLimits& limits) {
  if (o.summaries) return runFromSummaries(o, limits);
  auto trace = loadTrace(o.file, nullptr, limits);
  if (!trace) return fail(trace.error().message);
  if (std::string why = modulesUnavailableReason(*trace); !why.empty()) return fail(fmt::format("{}: {}", o.file, why));
  std::optional<int16_t> device;
  if (!o.device.empty()) {
    device = findDevice(*trace, o.device);
    if (!device) return fail(noDeviceMessage(*trace, o.file, o.device));
  } else {
    int64_t best = 0;
    for (int16_t id : trace->deviceIds()) {
      const int64_t peak = scopePeak(*trace, id).bytes;
      if (!device || peak > best) {
        device = id;
        best = peak;
      }
    }
    if (!device) return fail(fmt::format("{}: no allocator events on any device", o.file));
  }
  const auto n = static_cast<int64_t>(allocatorEvents(*trace, *device).size());
  auto at = parseAt(o, n, trace->deviceName(*device));
  if (const int* code = std::get_if<int>(&at)) return *code;
  const ModuleMemory memory = moduleMemoryAt(*trace, *device, std::get<std::optional<int64_t>>(at));
  if (o.json) std::cout << modulesJson(*trace, o.file, memory, o.depth) << "\n";
  else std::cout << modulesText(memory, o.depth);
  return 0;
}

}  // namespace sawtooth::cli
