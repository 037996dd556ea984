#include "core/analysis/summary_moment.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "core/analysis/allocator_machine.h"
#include "core/analysis/allocator_rules.h"
#include "core/util/keyed_hash.h"
#include "core/util/wrapping.h"

namespace sawtooth {

namespace {

constexpr const char* kNoStoredState =
    "the file's summaries hold no allocator state for this device (its recording began with memory already "
    "allocated and no snapshot of the allocator to start from), so its segments cannot be replayed from them";
constexpr const char* kNoSegments =
    "the trace carries no allocator segments on this device (no snapshot segments, no segment events: a CPU "
    "device, or a recording without them), so there is no segment map";

constexpr uint64_t kSeqsPerRead = 65536;

// The device's allocator events with seq in [from, end), in order, to `f` until it returns false.
template <class F>
Status forEachAllocatorEvent(summary::SummarySource& source, DeviceId device, uint64_t from, uint64_t end,
                             Progress* progress, F f) {
  std::vector<summary::EventRow> rows;
  while (from < end) {
    if (progress && progress->cancelled()) return Error{"cancelled"};
    const uint64_t last = std::min(end - 1, from + (kSeqsPerRead - 1));
    if (Status st = source.events(from, last, device, Source::Allocator, rows); !st) return st;
    for (const summary::EventRow& row : rows)
      if (!f(row)) return Ok{};
    from = last + 1;
  }
  return Ok{};
}

// The innermost phase (latest begun) under way at time t, by name.
Result<std::string> phaseAt(summary::SummarySource& source, DeviceId device, int64_t t) {
  std::vector<Phase> phases;
  if (Status st = source.phases(t, t + 1, 64, phases); !st) return st.error();
  const Phase* best = nullptr;
  for (const Phase& p : phases)
    if (p.kind == PhaseKind::Phase && (p.device == kAllDevices || p.device == device) && p.begin_ns <= t &&
        (!best || p.begin_ns >= best->begin_ns))
      best = &p;
  return best ? best->name : std::string();
}

LiveAllocation liveFrom(const BlockView& b, const Event* alloc) {
  LiveAllocation a{b.address, b.requested_size, b.stack, b.category, b.alloc_event};
  if (alloc) {
    a.bytes = alloc->size;
    a.stack = alloc->stack;
    a.category = alloc->category;
    a.module = alloc->module;
    a.pass = alloc->pass;
  }
  return a;
}

// Every active block of `state`, with the allocation events read during the replay (`known`) or
// read now by seq; the blocks take their category from it too (a stored state does not keep it).
Status liveFromState(summary::SummarySource& source, AllocatorState& state,
                     const std::unordered_map<uint64_t, Event>& known, LiveSet& live) {
  std::vector<summary::EventRow> rows;
  auto add = [&](BlockView& b) -> Status {
    if (!b.active()) return Ok{};
    const Event* alloc = nullptr;
    if (b.alloc_event != kBeforeTrace) {
      if (auto it = known.find(b.alloc_event); it != known.end()) {
        alloc = &it->second;
      } else {
        if (Status st = source.events(b.alloc_event, b.alloc_event, state.device, Source::Allocator, rows); !st) return st;
        if (!rows.empty() && rows.front().event.action == Action::Alloc) alloc = &rows.front().event;
      }
    }
    if (alloc) b.category = alloc->category;
    live.allocations.push_back(liveFrom(b, alloc));
    return Ok{};
  };
  for (SegmentView& s : state.segments)
    for (BlockView& b : s.blocks)
      if (Status st = add(b); !st) return st;
  for (BlockView& b : state.outside_segments)
    if (Status st = add(b); !st) return st;
  return Ok{};
}

int64_t activeBeforeTrace(const AllocatorState& state) {
  int64_t bytes = 0;
  auto add = [&](const BlockView& b) {
    if (b.active() && b.alloc_event == kBeforeTrace) bytes = wrappingAdd(bytes, b.requested_size);
  };
  for (const SegmentView& s : state.segments)
    for (const BlockView& b : s.blocks) add(b);
  for (const BlockView& b : state.outside_segments) add(b);
  return bytes;
}

}  // namespace

Result<SummaryMoment> momentFromSummaries(TimelineModel& model, const Trace& tables, DeviceId device,
                                          std::optional<int64_t> position, Progress* progress, bool state_only) {
  const TimelineModel::Device* d = model.device(device);
  if (!d || d->allocator_points == 0) return Error{fmt::format("{} has no allocator events", tables.deviceName(device))};
  summary::SummarySource& source = model.source();
  SummaryMoment out;
  out.device = device;
  out.device_events = d->allocator_points;
  out.at_peak = !position.has_value();
  if (position) {
    out.position = std::clamp<int64_t>(*position, -1, out.device_events - 1);
  } else {
    auto peak = model.peak(device, summary::kAllocated);
    if (!peak) return peak.error();
    out.position = peak->point;
  }
  auto events = source.eventCount();
  if (!events) return events.error();
  const uint64_t end = *events;
  const DeviceInfo* info = tables.device(device);
  const int64_t baseline = info ? info->baseline_allocated : 0;
  LiveSet& live = out.live;
  live.device = static_cast<int16_t>(device);
  live.position = out.position;
  const int64_t wanted = out.position + 1;  // allocator events to have applied

  auto checkpoint = source.checkpointAtOrBefore(device, wanted);
  if (!checkpoint) return checkpoint.error();
  if (*checkpoint) {
    const auto& cp = **checkpoint;
    AllocatorMachine machine(allocatorSettings(tables));
    machine.reset(cp.state);
    std::unordered_map<uint64_t, Event> allocs;  // the replay's own allocations, by seq
    int64_t applied = cp.position;
    uint64_t last_seq = cp.seq;
    bool saw_segment_event = false;
    const uint64_t from = cp.seq == kBeforeTrace ? 0 : cp.seq + 1;
    Status st = forEachAllocatorEvent(source, device, from, end, progress, [&](const summary::EventRow& row) {
      if (applied >= wanted) return false;
      machine.apply(row.event, row.seq);
      if (row.event.action == Action::Alloc) allocs[row.seq] = row.event;
      saw_segment_event |= row.event.action == Action::SegmentAlloc || row.event.action == Action::SegmentMap;
      last_seq = row.seq;
      out.event = row.event;
      ++applied;
      ++out.replayed;
      if (progress) progress->report(static_cast<uint64_t>(applied - cp.position), static_cast<uint64_t>(wanted - cp.position));
      return true;
    });
    if (!st) return st.error();
    if (applied < wanted)
      return Error{fmt::format("the file's events end {} allocator events before the summaries' {} on {}", wanted - applied,
                               out.device_events, tables.deviceName(device))};
    if (!out.event && out.position >= 0 && cp.seq != kBeforeTrace) {  // the stored state follows the moment's event
      std::vector<summary::EventRow> rows;
      if (Status s = source.events(cp.seq, cp.seq, device, Source::Allocator, rows); !s) return s.error();
      if (!rows.empty()) out.event = rows.front().event;
    }
    out.state = machine.state(static_cast<int16_t>(device), out.position, out.position < 0 ? kBeforeTrace : last_seq);
    if (Status s = liveFromState(source, *out.state, allocs, live); !s) return s.error();
    // Blocks alive but no segment on the device (none now, none in the replay, none in any state
    // the file stores for it): nothing the allocator's state could be drawn from, as the whole
    // trace's replay refuses such a device (a CPU's). An empty state is drawn as it is.
    if (out.state->segments.empty() && !out.state->outside_segments.empty() && !saw_segment_event) {
      auto stored = source.segmentStoredAtOrBefore(device, INT64_MAX);
      if (!stored) return stored.error();
      if (!*stored) {
        out.state.reset();
        out.why_no_state = kNoSegments;
      }
    }
    // What the device counted before the trace began but no block from then accounts for.
    auto start = source.checkpointAtOrBefore(device, 0);
    if (!start) return start.error();
    live.unattributed = wrappingSub(baseline, *start ? activeBeforeTrace((*start)->state) : 0);
  } else {
    out.why_no_state = kNoStoredState;
    if (state_only) return out;
    // No stored state: the allocations alone, as liveAllocationsAt counts them without segments.
    std::unordered_map<uint64_t, LiveAllocation, KeyedHash> alive;
    int64_t applied = 0, total = baseline;
    Status st = forEachAllocatorEvent(source, device, 0, end, progress, [&](const summary::EventRow& row) {
      if (applied >= wanted) return false;
      const Event& e = row.event;
      if (e.action == Action::Alloc) {
        alive[e.addr] = LiveAllocation{e.addr, e.size, e.stack, e.category, row.seq, e.module, e.pass};
        total = wrappingAdd(total, e.size);
      } else if (e.action == Action::FreeCompleted) {
        alive.erase(e.addr);
        total = wrappingSub(total, e.size);
      }
      out.event = e;
      ++applied;
      ++out.replayed;
      if (progress) progress->report(static_cast<uint64_t>(applied), static_cast<uint64_t>(wanted));
      return true;
    });
    if (!st) return st.error();
    int64_t attributed = 0;
    for (auto& [addr, a] : alive) {
      attributed = wrappingAdd(attributed, a.bytes);
      live.allocations.push_back(a);
    }
    live.unattributed = wrappingSub(total, attributed);
  }
  if (out.position < 0) out.event.reset();
  std::sort(live.allocations.begin(), live.allocations.end(),
            [](const LiveAllocation& x, const LiveAllocation& y) { return x.address < y.address; });
  live.total = live.unattributed;
  for (const LiveAllocation& a : live.allocations) live.total = wrappingAdd(live.total, a.bytes);

  if (out.event) {
    if (out.event->pass != Pass::None) out.context.pass = std::string(name(out.event->pass));
    if (out.event->module < tables.modules.size()) out.context.module = tables.modules.fullName(out.event->module);
    auto phase = phaseAt(source, device, out.event->t_ns);
    if (!phase) return phase.error();
    out.context.phase = std::move(*phase);
  }
  return out;
}

Result<std::vector<AllocatedTotal>> allocatedTotalsFromSummaries(summary::SummarySource& source, DeviceId device,
                                                                  Progress* progress) {
  auto count = source.eventCount();
  if (!count) return count.error();
  std::map<std::tuple<uint32_t, Category, uint32_t>, AllocatedTotal> totals;
  uint64_t seen = 0;
  Status st = forEachAllocatorEvent(source, device, 0, *count, progress, [&](const summary::EventRow& row) {
    const Event& e = row.event;
    if (progress && (++seen & 0xFFFF) == 0) progress->report(row.seq, *count);
    if (e.action != Action::Alloc) return true;
    AllocatedTotal& t = totals[{e.stack, e.category, e.module}];
    t.stack = e.stack;
    t.category = e.category;
    t.module = e.module;
    t.bytes = wrappingAdd(t.bytes, e.size);
    ++t.count;
    return true;
  });
  if (!st) return st.error();
  std::vector<AllocatedTotal> out;
  out.reserve(totals.size());
  for (auto& [key, t] : totals) out.push_back(t);
  return out;
}

LiveBytes liveBytesOf(const Trace& tables, const SummaryMoment& moment) {
  return liveBytesOf(tables, moment.live, moment.at_peak);
}

ModulesAt modulesOf(const Trace& tables, const SummaryMoment& moment) {
  return modulesFrom(moduleMemoryOf(tables, moment.live, moment.at_peak, moment.context));
}

std::optional<SegmentMap> segmentMapOf(const Trace& tables, const SummaryMoment& moment) {
  if (!moment.state) return std::nullopt;
  SegmentMap map = segmentMapOf(tables, *moment.state, moment.device_events, moment.event);
  if (moment.event && moment.event->action == Action::Oom) {
    SiteNamer names(tables.stacks);
    map.oom = explainOom(*moment.event, moment.state->event, moment.position, *moment.state, allocatorSettings(tables), names);
  }
  return map;
}

}  // namespace sawtooth
