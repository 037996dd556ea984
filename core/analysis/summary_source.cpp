#include "core/analysis/summary_source.h"

#include <fmt/format.h>

#include "core/analysis/allocator_history.h"
#include "core/analysis/step_alignment.h"

namespace sawtooth::summary {

Result<std::unique_ptr<MemorySource>> MemorySource::build(const Trace& trace, const BuilderOptions& options) {
  auto source = std::unique_ptr<MemorySource>(new MemorySource(trace));
  SummaryBuilder builder(source->store_, options);
  builder.setAllocatorSettings(allocatorSettings(trace));
  for (const DeviceInfo& d : trace.devices) builder.setBaseline(d.device, d.baseline_allocated, d.baseline_reserved);
  if (trace.segments_known) {
    ReplayOptions replay;
    replay.series = false;
    replay.checkpoints = false;
    for (DeviceId device : trace.deviceIds()) {
      if (device < INT16_MIN || device > INT16_MAX) continue;
      auto history = AllocatorHistory::build(trace, static_cast<int16_t>(device), replay);
      if (history) builder.setAllocatorStart(device, history->stateAfter(-1), history->settings());
    }
  }
  for (size_t i = 0; i < trace.phases.size(); ++i) builder.addPhase(static_cast<uint32_t>(i), trace.phases[i], false);
  builder.setStepStarts(findStepStarts(trace).t_ns);
  // A source's own totals, each after its event (points stay in event order, series.cpp).
  struct CounterPoint {
    uint64_t after;
    DeviceId device;
    bool allocated;
    int64_t value;
  };
  std::vector<CounterPoint> counters;
  for (const Counter& c : trace.counters) {
    if (c.name != "allocated" && c.name != "reserved") continue;
    uint64_t last = 0;
    for (size_t i = 0; i < c.value.size(); ++i) {
      if (i > 0 && c.after_event[i] < last) continue;
      last = c.after_event[i];
      counters.push_back({c.after_event[i], c.device, c.name == "allocated", c.value[i]});
    }
  }
  std::stable_sort(counters.begin(), counters.end(), [](const auto& a, const auto& b) { return a.after < b.after; });
  size_t next = 0;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    if (Status st = builder.add(i, trace.events.at(i)); !st) return st.error();
    for (; next < counters.size() && counters[next].after <= i; ++next)
      if (counters[next].after == i)
        if (Status st = builder.addCounter(counters[next].device, counters[next].allocated, i, trace.events.tNs()[i],
                                     counters[next].value);
            !st)
          return st.error();
  }
  if (Status st = builder.finish(); !st) return st.error();
  return source;
}

Result<std::vector<SeriesRow>> MemorySource::seriesRows() {
  std::vector<SeriesRow> out;
  for (const auto& [key, row] : store_.series) out.push_back(row);
  return out;
}

Result<std::vector<AxisRow>> MemorySource::axisRows() {
  std::vector<AxisRow> out;
  for (const auto& [key, row] : store_.axes) out.push_back(row);
  return out;
}

Status MemorySource::nodes(DeviceId device, int series, int level, int64_t first, int64_t last,
                           std::vector<std::pair<int64_t, NodeValues>>& out) {
  out.clear();
  for (auto it = store_.nodes.lower_bound({device, series, level, first}); it != store_.nodes.end(); ++it) {
    const auto& [d, s, l, n] = it->first;
    if (d != device || s != series || l != level || n > last) break;
    out.emplace_back(n, it->second);
  }
  return Ok{};
}

Status MemorySource::axisNodes(DeviceId device, int axis, int level, int64_t first, int64_t last,
                               std::vector<std::pair<int64_t, AxisNode>>& out) {
  out.clear();
  for (auto it = store_.axis_nodes.lower_bound({device, axis, level, first}); it != store_.axis_nodes.end(); ++it) {
    const auto& [d, a, l, n] = it->first;
    if (d != device || a != axis || l != level || n > last) break;
    out.emplace_back(n, it->second);
  }
  return Ok{};
}

Status MemorySource::events(uint64_t first, uint64_t last, std::optional<DeviceId> device, std::optional<Source> source,
                            std::vector<EventRow>& out) {
  out.clear();
  const EventStore& ev = trace_.events;
  for (uint64_t i = first; i <= last && i < ev.size(); ++i) {
    if (device && ev.device()[i] != *device) continue;
    if (source && ev.source()[i] != *source) continue;
    out.push_back(EventRow{i, ev.at(i)});
  }
  return Ok{};
}

Status MemorySource::allocatorEvents(std::optional<DeviceId> device, uint64_t first, uint64_t last,
                                     std::vector<AllocatorRow>& out) {
  out.clear();
  const EventStore& ev = trace_.events;
  for (uint64_t i = first; i <= last && i < ev.size(); ++i)
    if ((!device || ev.device()[i] == *device) && ev.source()[i] == Source::Allocator)
      out.push_back(AllocatorRow{i, ev.tNs()[i], ev.action()[i], ev.sizes()[i], ev.category()[i], ev.device()[i]});
  return Ok{};
}

Status MemorySource::phases(int64_t t0, int64_t t1, size_t max, std::vector<Phase>& out) {
  out.clear();
  for (const Phase& p : trace_.phases)
    if (p.end_ns >= t0 && p.begin_ns < t1 && out.size() < max) out.push_back(p);
  return Ok{};
}

Result<std::optional<std::string>> MemorySource::phaseName(uint32_t id) {
  if (id >= trace_.phases.size()) return std::optional<std::string>();
  return std::optional<std::string>(trace_.phases[id].name);
}

Status MemorySource::spans(DeviceId device, SpanKind kind, int64_t t0, int64_t t1, std::vector<SpanRow>& out) {
  out.clear();
  for (const auto& [key, row] : store_.spans)
    if (row.device == device && row.kind == kind && row.end_ns >= t0 && row.begin_ns < t1) out.push_back(row);
  return Ok{};
}

Status MemorySource::moduleCalls(int64_t t0, int64_t t1, size_t max, std::vector<ModuleCall>& out) {
  out.clear();
  for (const ModuleCall& call : trace_.modules.calls) {
    if (call.begin_ns < t0 || call.begin_ns >= t1) continue;
    out.push_back(call);
    if (out.size() > max) break;
  }
  std::stable_sort(out.begin(), out.end(), [](const ModuleCall& a, const ModuleCall& b) { return a.begin_ns < b.begin_ns; });
  return Ok{};
}

Result<std::optional<SummarySource::Checkpoint>> MemorySource::checkpointAtOrBefore(DeviceId device, int64_t position) {
  auto it = store_.checkpoints.upper_bound({device, position});
  if (it == store_.checkpoints.begin()) return std::optional<Checkpoint>();
  --it;
  if (it->first.first != device) return std::optional<Checkpoint>();
  return std::optional<Checkpoint>(Checkpoint{it->first.second, it->second.first, it->second.second});
}

Result<bool> MemorySource::segmentStoredAtOrBefore(DeviceId device, int64_t position) {
  for (auto it = store_.checkpoints.lower_bound({device, INT64_MIN});
       it != store_.checkpoints.end() && it->first.first == device && it->first.second <= position; ++it)
    if (!it->second.second.segments.empty()) return true;
  return false;
}

Result<std::optional<SummarySource::Ooms>> MemorySource::ooms(size_t max) {
  Ooms out;
  out.count = store_.ooms.size();
  out.first.assign(store_.ooms.begin(), store_.ooms.begin() + static_cast<std::ptrdiff_t>(std::min(max, store_.ooms.size())));
  return std::optional<Ooms>(std::move(out));
}

Result<std::optional<std::vector<CategoryPeaksRow>>> MemorySource::categoryPeaks() {
  std::vector<CategoryPeaksRow> rows;
  for (const auto& [device, row] : store_.category_peaks) rows.push_back(row);
  return std::optional<std::vector<CategoryPeaksRow>>(std::move(rows));
}

Result<uint64_t> MemorySource::eventCount() { return static_cast<uint64_t>(trace_.events.size()); }

}  // namespace sawtooth::summary
