#include "core/analysis/allocator_history.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/analysis/allocator_baseline.h"
#include "core/analysis/allocator_machine.h"

namespace sawtooth {
namespace {

size_t stateBytes(const AllocatorState& s) {
  size_t bytes = sizeof(AllocatorState) + s.segments.size() * sizeof(SegmentView) +
                 s.outside_segments.size() * sizeof(BlockView);
  for (const SegmentView& seg : s.segments) bytes += seg.blocks.size() * sizeof(BlockView);
  return bytes;
}

}  // namespace

std::vector<uint64_t> allocatorEvents(const Trace& trace, int16_t device) {
  std::vector<uint64_t> out;
  const auto& dev = trace.events.device();
  const auto& src = trace.events.source();
  for (size_t i = 0; i < dev.size(); ++i)
    if (dev[i] == device && src[i] == Source::Allocator) out.push_back(i);
  return out;
}

// One forward pass over the device's events from a start state.
class HistoryBuilder {
 public:
  HistoryBuilder(AllocatorHistory& h, const ReplayOptions& options, Progress* progress)
      : h_(h), options_(options), progress_(progress), machine_(h.settings_) {}

  Status run(const AllocatorStart& start) {
    h_.checkpoints_.clear();
    h_.series_ = {};
    machine_ = AllocatorMachine(h_.settings_);
    machine_.reset(start.state);
    const size_t n = h_.events_.size();
    AllocatorSeries& s = h_.series_;
    if (options_.series) {
      for (EventSeries* one : all(s)) one->values.reserve(n);
      push(s, true);
      for (size_t g = 0; g < machine_.poolCount(); ++g) newLane(g, machine_.poolLargestFree(g));
    }
    ReplayReport& r = h_.report_;
    r = {};
    r.peak_allocated_bytes = machine_.allocatedBytes();
    h_.checkpoints_.push_back({0, start.state});
    size_t checkpoint_bytes = stateBytes(start.state);
    int64_t interval = std::max<int64_t>(1, options_.first_checkpoint_interval);
    const EventStore& ev = h_.trace_->events;
    for (size_t p = 0; p < n; ++p) {
      const auto position = static_cast<int64_t>(p);
      if (options_.checkpoints && p > 0 && position % interval == 0) {
        h_.checkpoints_.push_back({position, machine_.state(h_.device_, position - 1, h_.events_[p - 1])});
        checkpoint_bytes += stateBytes(h_.checkpoints_.back().state);
        if (checkpoint_bytes > options_.checkpoint_budget_bytes) checkpoint_bytes = thin(interval);
      }
      machine_.apply(ev.at(h_.events_[p]), h_.events_[p]);
      if (machine_.allocatedBytes() > r.peak_allocated_bytes) {
        r.peak_allocated_bytes = machine_.allocatedBytes();
        r.peak_position = position;
        r.peak_event = h_.events_[p];
      }
      if (options_.series) {
        push(s, false);
        for (size_t g = 0; g < machine_.poolCount(); ++g) {
          if (g >= s.largest_free_by_pool.size()) newLane(g, 0);
          PoolLane& lane = s.largest_free_by_pool[g];
          const int64_t v = machine_.poolLargestFree(g);
          if (v != (lane.value.empty() ? lane.start : lane.value.back())) {
            lane.position.push_back(position);
            lane.value.push_back(v);
          }
        }
      }
      if ((p & 0xffff) == 0xffff && progress_) {
        if (progress_->cancelled()) return Error{"cancelled"};
        progress_->report(p, n);
      }
    }
    r.final_allocated_bytes = machine_.allocatedBytes();
    r.anomalies = start.anomalies + machine_.anomalies();
    r.anomaly_notes = start.notes;
    for (const std::string& note : machine_.anomalyNotes())
      if (r.anomaly_notes.size() < 20) r.anomaly_notes.push_back(note);
    r.inferred_blocks = start.inferred_blocks;
    r.inferred_bytes_max = start.inferred_bytes_max;
    r.settings_from_trace = h_.settings_.from_trace;
    if (h_.trace_->segments_known) {
      r.snapshot_checked = true;
      const int64_t last = static_cast<int64_t>(n) - 1;
      r.differences = compareWithSnapshot(
          machine_.state(h_.device_, last, n ? h_.events_.back() : kBeforeTrace), *h_.trace_);
      r.matches_snapshot = r.differences.empty();
    }
    return Ok{};
  }

  const std::map<uint64_t, int64_t>& resolutions() const { return machine_.resolutions(); }

 private:
  static std::vector<EventSeries*> all(AllocatorSeries& s) {
    return {&s.allocated_bytes, &s.reserved_minus_allocated, &s.internal_waste, &s.external_fragmentation,
            &s.largest_free_block};
  }

  void push(AllocatorSeries& s, bool as_start) {
    const AllocatorMachine::Fragmentation f = machine_.fragmentation();
    const int64_t values[] = {machine_.allocatedBytes(), f.reserved_minus_allocated, machine_.internalWaste(), f.external,
                              f.largest_free};
    auto series = all(s);
    for (size_t i = 0; i < series.size(); ++i) {
      if (as_start) series[i]->start = values[i];
      else series[i]->values.push_back(values[i]);
    }
  }

  void newLane(size_t g, int64_t start) {
    PoolLane lane;
    lane.small_pool = machine_.poolKey(g).small_pool;
    lane.stream = machine_.poolKey(g).stream;
    lane.start = start;
    h_.series_.largest_free_by_pool.push_back(std::move(lane));
  }

  // Over budget: keep every other checkpoint (the start always) and double the interval.
  size_t thin(int64_t& interval) {
    interval *= 2;
    std::vector<AllocatorHistory::Checkpoint> kept;
    size_t bytes = 0;
    for (auto& c : h_.checkpoints_) {
      if (c.position % interval != 0) continue;
      bytes += stateBytes(c.state);
      kept.push_back(std::move(c));
    }
    h_.checkpoints_ = std::move(kept);
    return bytes;
  }

  AllocatorHistory& h_;
  const ReplayOptions& options_;
  Progress* progress_;
  AllocatorMachine machine_;
};

Result<AllocatorHistory> AllocatorHistory::build(const Trace& trace, int16_t device, const ReplayOptions& options,
                                                 Progress* progress) {
  AllocatorHistory h;
  h.trace_ = &trace;
  h.device_ = device;
  h.settings_ = allocatorSettings(trace);
  h.events_ = allocatorEvents(trace, device);
  // Sizes inferred for blocks from before the trace may be pinned down by later events; the
  // replay then runs again with them (rarely more than once).
  std::map<uint64_t, int64_t> known;
  for (int attempt = 0;; ++attempt) {
    auto start = allocatorStart(trace, device, h.events_, h.settings_, known);
    if (!start) return start.error();
    HistoryBuilder builder(h, options, progress);
    if (Status st = builder.run(*start); !st) return st.error();
    bool learned = false;
    for (const auto& [addr, size] : builder.resolutions()) learned |= known.insert_or_assign(addr, size).second;
    if (!learned || attempt == 2) {
      h.report_.resolved_blocks = known.size();
      break;
    }
  }
  return h;
}

AllocatorState AllocatorHistory::stateAfter(int64_t position) const {
  const int64_t n = static_cast<int64_t>(events_.size());
  position = std::clamp<int64_t>(position, -1, n - 1);
  // The last checkpoint taken before the event after `position`.
  auto cp = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), position + 1,
                             [](int64_t p, const Checkpoint& c) { return p < c.position; });
  if (cp == checkpoints_.begin()) return {};
  --cp;
  if (cp->position == position + 1) {
    AllocatorState s = cp->state;
    s.position = position;
    s.event = position >= 0 ? events_[static_cast<size_t>(position)] : kBeforeTrace;
    return s;
  }
  AllocatorMachine machine(settings_);
  machine.reset(cp->state);
  for (int64_t p = cp->position; p <= position; ++p) {
    const uint64_t e = events_[static_cast<size_t>(p)];
    machine.apply(trace_->events.at(e), e);
  }
  return machine.state(device_, position, position >= 0 ? events_[static_cast<size_t>(position)] : kBeforeTrace);
}

size_t AllocatorHistory::checkpointBytes() const {
  size_t bytes = 0;
  for (const Checkpoint& c : checkpoints_) bytes += stateBytes(c.state);
  return bytes;
}

std::vector<std::string> compareWithSnapshot(const AllocatorState& state, const Trace& trace, size_t max_differences) {
  std::vector<std::string> out;
  auto differ = [&](std::string text) {
    if (out.size() < max_differences) out.push_back(std::move(text));
  };
  std::vector<const SnapshotSegment*> expected;
  for (const SnapshotSegment& s : trace.segments)
    if (s.device == state.device) expected.push_back(&s);
  std::sort(expected.begin(), expected.end(), [](auto* a, auto* b) { return a->address < b->address; });
  if (expected.size() != state.segments.size())
    differ(fmt::format("{} segments replayed, the snapshot has {}", state.segments.size(), expected.size()));
  std::map<uint64_t, const SegmentView*> replayed;
  for (const SegmentView& s : state.segments) replayed[s.address] = &s;
  for (const SnapshotSegment* e : expected) {
    auto it = replayed.find(e->address);
    if (it == replayed.end()) {
      differ(fmt::format("segment {:#x} ({} bytes) of the snapshot was not replayed", e->address, e->total_size));
      continue;
    }
    const SegmentView& g = *it->second;
    if (g.total_size != e->total_size || g.stream != e->stream || g.small_pool != e->small_pool ||
        g.expandable != e->expandable)
      differ(fmt::format("segment {:#x}: replayed {} bytes, stream {}, {} pool{}; the snapshot {} bytes, stream {}, "
                         "{} pool{}",
                         e->address, g.total_size, g.stream, g.small_pool ? "small" : "large",
                         g.expandable ? ", expandable" : "", e->total_size, e->stream, e->small_pool ? "small" : "large",
                         e->expandable ? ", expandable" : ""));
    if (g.blocks.size() != e->blocks.size()) {
      differ(fmt::format("segment {:#x}: {} blocks replayed, the snapshot has {}", e->address, g.blocks.size(),
                         e->blocks.size()));
      continue;
    }
    for (size_t b = 0; b < g.blocks.size(); ++b) {
      const BlockView& gb = g.blocks[b];
      const SnapshotBlock& eb = e->blocks[b];
      const bool requested_differs = eb.state != BlockState::Inactive && gb.requested_size != eb.requested_size;
      if (gb.address != eb.address || gb.size != eb.size || gb.state != eb.state || requested_differs)
        differ(fmt::format("block {:#x}: replayed {} bytes ({} requested) {}; the snapshot has {:#x}, {} bytes ({} "
                           "requested) {}",
                           gb.address, gb.size, gb.requested_size, name(gb.state), eb.address, eb.size,
                           eb.requested_size, name(eb.state)));
    }
  }
  for (const SegmentView& s : state.segments) {
    const bool in_snapshot = std::any_of(expected.begin(), expected.end(), [&](auto* e) { return e->address == s.address; });
    if (!in_snapshot) differ(fmt::format("segment {:#x} ({} bytes) was replayed but is not in the snapshot", s.address, s.total_size));
  }
  if (!state.outside_segments.empty())
    differ(fmt::format("{} allocations lie in no segment", state.outside_segments.size()));
  return out;
}

std::optional<BlockBytesPeak> allocatedBlockPeak(const Trace& trace, int16_t device) {
  if (const Counter* c = trace.counter(device, "allocated")) {
    BlockBytesPeak p;
    const DeviceInfo* info = trace.device(device);
    p.peak = p.final = info ? info->baseline_allocated : 0;
    for (int64_t v : c->value) p.peak = std::max(p.peak, v);
    if (!c->value.empty()) p.final = c->value.back();
    p.source = "counter";
    p.exact = true;
    return p;
  }
  ReplayOptions light;
  light.series = false;
  light.checkpoints = false;
  auto history = AllocatorHistory::build(trace, device, light);
  if (!history) return std::nullopt;
  const ReplayReport& r = history->report();
  return BlockBytesPeak{r.peak_allocated_bytes, r.final_allocated_bytes, "replay", r.exact()};
}

}  // namespace sawtooth
