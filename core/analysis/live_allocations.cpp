#include "core/analysis/live_allocations.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/analysis/allocator_baseline.h"
#include "core/analysis/allocator_history.h"
#include "core/analysis/peaks.h"
#include "core/analysis/series.h"
#include "core/util/keyed_hash.h"
#include "core/util/wrapping.h"

namespace sawtooth {

LiveSet liveAllocationsAt(const Trace& trace, int16_t device, int64_t position, std::optional<uint16_t> run) {
  LiveSet out;
  out.device = device;
  out.run = run;
  const std::vector<uint64_t> events = allocatorEvents(trace, device);
  position = std::clamp<int64_t>(position, -1, static_cast<int64_t>(events.size()) - 1);
  out.position = position;

  std::unordered_map<uint64_t, LiveAllocation, KeyedHash> live;  // addresses from the file: keyed
  if (!run) {
    const DeviceInfo* info = trace.device(device);
    out.total = info ? info->baseline_allocated : 0;
    // What was alive when the trace began, with the stacks the snapshot kept for it.
    if (trace.segments_known) {
      if (auto start = allocatorStart(trace, device, events, allocatorSettings(trace))) {
        auto add = [&](const BlockView& b) {
          if (b.active()) live[b.address] = LiveAllocation{b.address, b.requested_size, b.stack, b.category, UINT64_MAX};
        };
        for (const SegmentView& s : start->state.segments)
          for (const BlockView& b : s.blocks) add(b);
        for (const BlockView& b : start->state.outside_segments) add(b);
      }
    }
  }
  const EventStore& ev = trace.events;
  for (int64_t p = 0; p <= position; ++p) {
    const uint64_t i = events[static_cast<size_t>(p)];
    if (run && ev.run()[i] != *run) continue;
    const Action a = ev.action()[i];
    if (a == Action::Alloc) {
      live[ev.addr()[i]] =
          LiveAllocation{ev.addr()[i], ev.sizes()[i], ev.stack()[i], ev.category()[i], i, ev.module(i), ev.pass(i)};
      out.total = wrappingAdd(out.total, ev.sizes()[i]);
    } else if (a == Action::FreeCompleted) {
      live.erase(ev.addr()[i]);
      out.total = wrappingSub(out.total, ev.sizes()[i]);
    }
  }
  out.allocations.reserve(live.size());
  int64_t attributed = 0;
  for (auto& [addr, l] : live) {
    attributed = wrappingAdd(attributed, l.bytes);
    out.allocations.push_back(l);
  }
  std::sort(out.allocations.begin(), out.allocations.end(),
            [](const LiveAllocation& x, const LiveAllocation& y) { return x.address < y.address; });
  out.unattributed = wrappingSub(out.total, attributed);
  return out;
}

ScopePeak scopePeak(const Trace& trace, int16_t device, std::optional<uint16_t> run) {
  ScopePeak peak;
  if (!run) {
    const Peak p = findPeak(buildDeviceSeries(trace, device).allocated);
    peak.bytes = p.value;
    peak.position = p.point < 0 ? -1 : p.x_index;
    peak.event = p.event;
    return peak;
  }
  const EventStore& ev = trace.events;
  int64_t live = 0, position = -1;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (ev.device()[i] != device || ev.source()[i] != Source::Allocator) continue;
    ++position;
    if (ev.run()[i] != *run) continue;
    live = wrappingAdd(live, wrappingMul(allocatedSign(ev.action()[i]), ev.sizes()[i]));
    if (live > peak.bytes) {
      peak.bytes = live;
      peak.position = position;
      peak.event = i;
    }
  }
  return peak;
}

std::vector<AllocatedTotal> allocatedTotals(const Trace& trace, int16_t device, std::optional<uint16_t> run) {
  std::map<std::tuple<uint32_t, Category, uint32_t>, AllocatedTotal> totals;
  const EventStore& ev = trace.events;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (ev.device()[i] != device || ev.source()[i] != Source::Allocator || ev.action()[i] != Action::Alloc) continue;
    if (run && ev.run()[i] != *run) continue;
    AllocatedTotal& t = totals[{ev.stack()[i], ev.category()[i], ev.module(i)}];
    t.stack = ev.stack()[i];
    t.category = ev.category()[i];
    t.module = ev.module(i);
    t.bytes = wrappingAdd(t.bytes, ev.sizes()[i]);
    ++t.count;
  }
  std::vector<AllocatedTotal> out;
  out.reserve(totals.size());
  for (auto& [key, t] : totals) out.push_back(t);
  return out;
}

}  // namespace sawtooth
