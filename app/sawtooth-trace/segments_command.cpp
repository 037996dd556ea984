#include <iostream>

#include <fmt/format.h>

#include "app/sawtooth-trace/allocator_commands.h"
#include "app/sawtooth-trace/device_option.h"
#include "core/analysis/allocator_history.h"
#include "core/analysis/allocator_rules.h"
#include "core/analysis/oom_explanation.h"
#include "core/analysis/segment_map.h"
#include "core/io/file_moments.h"
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
  o.command->add_flag("--summaries", o.summaries, "a .sawtooth file of any length: read its summaries and, from the nearest allocator state it stores, the events up to the moment (not every event)");
}

namespace {

int segmentsFromSummaries(const SegmentsOptions& o, const ReadLimits& limits) {
  auto file = openFileMoments(o.file, limits);
  if (!file) return fail(file.error().message);
  const Trace& tables = file->tables();
  std::vector<DeviceId> devices;
  if (!o.device.empty()) {
    auto d = findDevice(tables, o.device);
    if (!d) return fail(noDeviceMessage(tables, o.file, o.device));
    devices.push_back(*d);
  } else {
    for (const TimelineModel::Device& d : file->model->devices())
      if (d.allocator_points > 0) devices.push_back(d.device);
    if (devices.empty()) return fail(fmt::format("{}: no allocator events on any device", o.file));
  }
  std::vector<SegmentsEntry> entries;
  size_t failed = 0;
  for (DeviceId device : devices) {
    SegmentsEntry entry;
    entry.state.device = static_cast<int16_t>(device);
    const int64_t n = file->allocatorEvents(device);
    const bool given = o.at_option && o.at_option->count() > 0;
    if (given && (o.at < -1 || o.at >= n))
      return fail(fmt::format("{}: --at {} is outside {}'s allocator events (-1 to {})", o.file, o.at,
                              tables.deviceName(device), n - 1));
    auto moment = file->at(device, given ? o.at : n - 1, nullptr, true);
    if (moment && !moment->state) moment = Error{fmt::format("{}: {}", tables.deviceName(device), moment->why_no_state)};
    if (!moment) {
      entry.error = moment.error().message;
      ++failed;
      entries.push_back(std::move(entry));
      continue;
    }
    if (moment->event && moment->event->action == Action::Oom) {
      SiteNamer names(tables.stacks);
      entry.oom = explainOom(*moment->event, moment->state->event, moment->position, *moment->state,
                             allocatorSettings(tables), names);
    }
    entry.state = std::move(*moment->state);
    entry.device_events = static_cast<size_t>(n);
    entries.push_back(std::move(entry));
  }
  if (failed == entries.size()) return fail(fmt::format("{}: {}", o.file, entries.front().error));
  if (o.json) std::cout << segmentsJson(tables, o.file, entries) << "\n";
  else std::cout << segmentsText(tables, entries);
  return 0;
}

}  // namespace

int runSegmentsCommand(const SegmentsOptions& o, const ReadLimits& limits) {
  if (o.summaries) return segmentsFromSummaries(o, limits);
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
