#include <iostream>

#include <fmt/format.h>

#include "app/sawtooth-trace/allocator_commands.h"
#include "app/sawtooth-trace/device_option.h"
#include "core/analysis/allocator_history.h"
#include "core/analysis/oom_explanation.h"
#include "core/io/allocator_json.h"
#include "core/io/trace_loader.h"
#include "core/util/printable.h"

namespace sawtooth::cli {
namespace {

constexpr int kExitInput = 1;

int fail(const std::string& message) {
  fmt::print(stderr, "sawtooth-trace: {}\n", printable(message));
  return kExitInput;
}

}  // namespace

void addSegmentsCommand(CLI::App& app, SegmentsOptions& o) {
  o.command = app.add_subcommand("segments", "The caching allocator's segments and blocks at an event, replayed "
                                             "from the trace (the last event by default)");
  o.command->add_option("FILE", o.file, "trace file")->required();
  o.at_option = o.command->add_option("--at", o.at,
                                      "the device's allocator-event index (0-based, as info's "
                                      "peak_allocated_event_index; -1: before the first)");
  o.command->add_option("--device", o.device, "one device: cuda:N, N or cpu (default: every device)");
  o.command->add_flag("--json", o.json, "print one JSON object");
}

int runSegmentsCommand(const SegmentsOptions& o, const ReadLimits& limits) {
  auto trace = loadTrace(o.file, nullptr, limits);
  if (!trace) return fail(trace.error().message);
  std::vector<int16_t> devices;
  if (!o.device.empty()) {
    auto d = findDevice(*trace, o.device);
    if (!d) return fail(noDeviceMessage(*trace, o.file, o.device));
    devices.push_back(*d);
  } else {
    for (int16_t id : trace->deviceIds())
      if (!allocatorEvents(*trace, id).empty()) devices.push_back(id);
    if (devices.empty()) return fail(fmt::format("{}: no allocator events on any device", o.file));
  }

  ReplayOptions options;
  options.series = false;  // checkpoints stay: the state at --at then replays a few thousand events, not all
  std::vector<AllocatorHistory> histories;
  std::vector<SegmentsEntry> entries;
  histories.reserve(devices.size());
  size_t failed = 0;
  for (int16_t device : devices) {
    SegmentsEntry entry;
    entry.state.device = device;
    auto history = AllocatorHistory::build(*trace, device, options);
    if (!history) {
      entry.error = history.error().message;
      ++failed;
      entries.push_back(std::move(entry));
      continue;
    }
    histories.push_back(std::move(*history));
    const AllocatorHistory& h = histories.back();
    const auto n = static_cast<int64_t>(h.events().size());
    const bool given = o.at_option && o.at_option->count() > 0;
    if (given && (o.at < -1 || o.at >= n))
      return fail(fmt::format("{}: --at {} is outside {}'s allocator events (-1 to {})", o.file, o.at,
                              trace->deviceName(device), n - 1));
    const int64_t position = given ? o.at : n - 1;
    entry.state = h.stateAfter(position);
    entry.report = &h.report();
    entry.device_events = h.events().size();
    if (position >= 0 && trace->events.action()[h.events()[static_cast<size_t>(position)]] == Action::Oom) {
      SiteNamer names(trace->stacks);
      entry.oom = explainOom(*trace, h, position, names);
    }
    entries.push_back(std::move(entry));
  }
  if (failed == entries.size()) return fail(fmt::format("{}: {}", o.file, entries.front().error));
  if (o.json) std::cout << segmentsJson(*trace, o.file, entries) << "\n";
  else std::cout << segmentsText(*trace, entries);
  return 0;
}

}  // namespace sawtooth::cli
