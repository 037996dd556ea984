#include "core/analysis/summary_builder.h"

#include <algorithm>
#include <deque>
#include <queue>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/util/wrapping.h"

namespace sawtooth::summary {
namespace {

// The axis nodes of one axis, grown point by point as PyramidBuilder grows values.
class AxisPyramid {
 public:
  using Sink = std::function<void(int level, int64_t node, const AxisNode&)>;

  template <typename Closed>
  void add(uint64_t seq, int64_t t, Closed&& closed) {
    if (leaf_.points == 0) leaf_ = AxisNode{0, seq, seq, t, t};
    ++leaf_.points;
    leaf_.last_seq = seq;
    leaf_.t_last = t;
    ++points_;
    if (leaf_.points == kLeafPoints) closeLeaf(Sink(std::forward<Closed>(closed)));
  }

  void closeLeaf(const Sink& closed) {
    AxisNode node = leaf_;
    closed(0, (points_ - 1) / kLeafPoints, node);
    leaf_ = AxisNode{};
    for (int level = 1; level < kMaxLevels; ++level) {
      if (children_.size() <= static_cast<size_t>(level)) children_.resize(static_cast<size_t>(level) + 1);
      auto& kids = children_[static_cast<size_t>(level)];
      kids.push_back(node);
      if (static_cast<int64_t>(kids.size()) < kFanout) return;
      node = fold(kids);
      kids.clear();
      closed(level, (points_ - 1) / nodePoints(level), node);
    }
  }

  void openNodes(const Sink& sink) const {
    if (points_ == 0) return;
    const int top = topLevel(points_);
    bool has_below = leaf_.points > 0;
    AxisNode below = leaf_;
    if (has_below) sink(0, points_ / kLeafPoints, below);
    for (int level = 1; level <= top; ++level) {
      const bool has_kids = static_cast<size_t>(level) < children_.size() && !children_[static_cast<size_t>(level)].empty();
      if (!has_kids && !has_below) continue;
      AxisNode node = has_kids ? fold(children_[static_cast<size_t>(level)]) : below;
      if (has_kids && has_below) node = combine(node, below);
      sink(level, points_ / nodePoints(level), node);
      below = node;
      has_below = true;
    }
  }

  int64_t points() const { return points_; }
  // The open leaf (points() not a multiple of the leaf's size).
  const AxisNode& openLeaf() const { return leaf_; }

 private:
  static AxisNode fold(const std::vector<AxisNode>& nodes) {
    AxisNode acc = nodes[0];
    for (size_t i = 1; i < nodes.size(); ++i) acc = combine(acc, nodes[i]);
    return acc;
  }
  AxisNode leaf_;
  std::vector<std::vector<AxisNode>> children_;
  int64_t points_ = 0;
};

}  // namespace

// A driver record or sample waiting for its place.
struct SummaryBuilder::Waiting {
  int64_t t;
  uint64_t seq;
  int axis;
  int64_t value;  // the driver's change, or the sample
  auto operator<=>(const Waiting&) const = default;
};

namespace {

// The fragmentation series' values in the machine's state.
std::array<std::pair<int, int64_t>, 3> fragmentationOf(const AllocatorMachine& m) {
  const AllocatorMachine::Fragmentation f = m.fragmentation();
  return {{{kReservedMinusAllocated, f.reserved_minus_allocated}, {kExternalFragmentation, f.external},
           {kLargestFreeBlock, f.largest_free}}};
}

}  // namespace

int axisOf(int series) {
  switch (series) {
    case kDriver: return kDriverAxis;
    case kDeviceUsed: return kSampleAxis;
    case kAllocatedCounter: return kAllocatedCounterAxis;
    case kReservedCounter: return kReservedCounterAxis;
    default: return kAllocatorAxis;
  }
}

AxisNode combine(const AxisNode& a, const AxisNode& b) {
  return AxisNode{a.points + b.points, a.first_seq, b.last_seq, a.t_first, b.t_last};
}

struct SummaryBuilder::SpanDef {
  SpanKind kind = SpanKind::Phase;
  int64_t id = 0;
  DeviceId device = kAllDevices;
  int64_t begin = 0, end = 0;
  bool open = true;
};

constexpr size_t kAxisCount = 5;
constexpr size_t kSeriesSlots = layerSeries(kCategoryLayers - 1) + 1;

struct SummaryBuilder::Device {
  DeviceId id = 0;
  int64_t allocated_start = 0, reserved_start = 0;
  int64_t allocated = 0, reserved = 0;
  std::array<int64_t, kCategoryCount> live{};
  bool categorised = false;
  // Each category's peak: the most live bytes at the start and at the points older than the recent
  // ones (final: a category learnt late moves bytes only from a recent point on), and the live
  // bytes at each recent point (aligned with `recent`) with their most, recomputed when a late
  // category moved bytes among them. A category learnt for an older point makes the peaks inexact.
  std::array<int64_t, kCategoryCount> peaks_sealed{};
  std::deque<std::array<int64_t, kCategoryCount>> recent_live;
  std::array<int64_t, kCategoryCount> recent_peaks{};
  bool recent_peaks_stale = false;
  bool peaks_exact = true;
  std::array<std::optional<AxisPyramid>, kAxisCount> axes;
  std::array<int64_t, kAxisCount> axis_last_t;  // clamped time of each axis' last point
  std::array<std::optional<PyramidBuilder>, kSeriesSlots> series;  // by series id
  std::array<int64_t, kSeriesSlots> series_start{};
  // Driver records and samples waiting for their place, and where each axis has sealed up to.
  std::set<Waiting> waiting;
  std::array<std::multiset<uint64_t>, 3> waiting_seqs;  // per axis (driver, samples), for the reader
  std::array<int64_t, 3> sealed_t{INT64_MIN, INT64_MIN, INT64_MIN};
  int64_t driver_value = 0;
  // Spans: not begun yet (earliest first), and growing.
  using Pending = std::pair<int64_t, std::shared_ptr<SpanDef>>;
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const { return a.first > b.first; }
  };
  std::priority_queue<Pending, std::vector<Pending>, Later> pending;
  struct Active {
    std::shared_ptr<SpanDef> def;
    SpanRow row;
  };
  std::vector<Active> active;
  // The seqs of the latest allocator points, for finding a point from its seq, and their clamped
  // times and bytes, for a phase that arrives after the points it covers (lateSpan).
  std::deque<uint64_t> recent;
  struct PointState {
    int64_t t, allocated, reserved;
  };
  std::deque<PointState> recent_state;
  int64_t recent_first = 0;
  int64_t categorised_point = INT64_MAX;  // the first point with a category (as the final categories put it)
  // The closed spans written with a peak at or after closed_from (kept as far back as the recent
  // points go), by peak point: the spans a recent point's new category moves bytes in.
  std::multimap<int64_t, std::pair<SpanKind, int64_t>> closed_peaks;
  int64_t closed_from = 0;
  std::optional<AllocatorMachine> machine;
  uint64_t last_allocator_seq = 0;

  Device() { axis_last_t.fill(INT64_MIN); }
  int64_t points() const { return axes[kAllocatorAxis] ? axes[kAllocatorAxis]->points() : 0; }
  PyramidBuilder& builder(int which) {
    auto& b = series[static_cast<size_t>(which)];
    if (!b) b.emplace();
    return *b;
  }
  AxisPyramid& axis(int which) {
    auto& a = axes[static_cast<size_t>(which)];
    if (!a) a.emplace();
    return *a;
  }
};

SummaryBuilder::SummaryBuilder(SummaryStore& store, BuilderOptions options) : store_(store), options_(options) {}
SummaryBuilder::~SummaryBuilder() = default;

void SummaryBuilder::markStale(std::string reason) {
  if (stale_reason_.empty()) stale_reason_ = std::move(reason);
}

void SummaryBuilder::setBaseline(DeviceId id, int64_t allocated, int64_t reserved) {
  baselines_[id] = {allocated, reserved};
  auto it = devices_.find(id);
  if (it == devices_.end()) return;
  Device& d = *it->second;
  if (d.allocated_start == allocated && d.reserved_start == reserved) return;
  if (d.points() > 0) {
    markStale(fmt::format("the baseline of device {} changed after its first event", id));
    return;
  }
  d.allocated = d.allocated_start = allocated;
  d.reserved = d.reserved_start = reserved;
  d.live = {};
  d.live[0] = allocated;
  d.peaks_sealed = d.live;
}

void SummaryBuilder::setAllocatorStart(DeviceId id, const AllocatorState& state, const AllocatorSettings& settings) {
  starts_[id] = {state, settings};
}

SummaryBuilder::Device& SummaryBuilder::device(DeviceId id) {
  auto it = devices_.find(id);
  if (it != devices_.end()) return *it->second;
  auto d = std::make_unique<Device>();
  d->id = id;
  if (auto b = baselines_.find(id); b != baselines_.end()) {
    d->allocated_start = b->second.first;
    d->reserved_start = b->second.second;
  }
  d->allocated = d->allocated_start;
  d->reserved = d->reserved_start;
  d->live[0] = d->allocated_start;
  d->peaks_sealed = d->live;
  d->series_start[kAllocated] = d->allocated_start;
  d->series_start[kReserved] = d->reserved_start;
  d->series_start[kAllocatedCounter] = d->allocated_start;
  d->series_start[kReservedCounter] = d->reserved_start;
  if (options_.checkpoints) {
    if (auto s = starts_.find(id); s != starts_.end()) {
      d->machine.emplace(s->second.second);
      d->machine->reset(s->second.first);
    } else if (d->allocated_start == 0 && d->reserved_start == 0) {
      d->machine.emplace(settings_);
      AllocatorState empty;
      empty.device = static_cast<int16_t>(id);
      d->machine->reset(empty);
    }
    if (d->machine) {
      const auto fragmentation = fragmentationOf(*d->machine);
      for (size_t k = 0; k < fragmentation.size(); ++k) d->series_start[static_cast<size_t>(fragmentation[k].first)] = fragmentation[k].second;
    }
  }
  // Spans that apply to every device and may still hold this one's points.
  auto maybe = [&](const std::shared_ptr<SpanDef>& def) {
    if (def && (def->device == kAllDevices || def->device == id) && (def->open || def->end > frontier_t_))
      d->pending.emplace(def->begin, def);
  };
  for (const auto& [phase, def] : live_phases_) maybe(def);
  for (const auto& def : live_steps_) maybe(def);
  return *devices_.emplace(id, std::move(d)).first->second;
}

void SummaryBuilder::addPhase(uint32_t id, const Phase& phase, bool open) {
  auto live = live_phases_.find(id);
  // Ended, written and let go: nothing moves it now. (Not "an id below the highest seen": a writer
  // may hand a batch's phases over in another order than their ids, and such a phase, new, was lost.)
  if (live == live_phases_.end() && id < swept_phases_.size() && swept_phases_[id]) return;
  auto& def = live_phases_[id];
  const bool is_new = !def;
  if (is_new) {
    def = std::make_shared<SpanDef>();
    def->kind = SpanKind::Phase;
    def->id = id;
    def->device = phase.device;
  }
  def->begin = phase.begin_ns;
  def->end = phase.end_ns;
  def->open = open;
  if (!is_new) return;
  for (auto& [device_id, d] : devices_) {
    if (def->device != kAllDevices && def->device != device_id) continue;
    // Begun at or before the device's last point (an NVTX range CUPTI delivers in its buffers):
    // the points it covers are already in, so it is filled from the recent ones.
    if (d->points() > 0 && def->begin <= d->axis_last_t[kAllocatorAxis]) {
      lateSpan(*d, def);
      continue;
    }
    d->pending.emplace(def->begin, def);
  }
  // A step begins with each forward phase (core/analysis/step_alignment.h, rule 1).
  if (!steps_given_ && phase.kind == PhaseKind::Phase && phase.name == "forward") {
    if (!live_steps_.empty() && live_steps_.back()->open) {
      live_steps_.back()->end = std::max(live_steps_.back()->begin, phase.begin_ns);
      live_steps_.back()->open = false;
    }
    auto step = std::make_shared<SpanDef>();
    step->kind = SpanKind::Step;
    step->id = steps_++;
    step->begin = step->end = phase.begin_ns;
    step->open = true;
    live_steps_.push_back(step);
    for (auto& [device_id, d] : devices_) d->pending.emplace(step->begin, step);
  }
}

void SummaryBuilder::setStepStarts(std::vector<int64_t> starts) {
  steps_given_ = true;
  live_steps_.clear();
  for (size_t i = 0; i < starts.size(); ++i) {
    auto step = std::make_shared<SpanDef>();
    step->kind = SpanKind::Step;
    step->id = static_cast<int64_t>(i);
    step->begin = starts[i];
    step->end = i + 1 < starts.size() ? starts[i + 1] : starts[i];
    step->open = i + 1 == starts.size();
    live_steps_.push_back(step);
    for (auto& [device_id, d] : devices_) d->pending.emplace(step->begin, step);
  }
}

namespace {

// Point `point` of the device inside a span: the span's peak is its first point of the most
// allocated bytes; it keeps the most reserved.
void takePoint(SpanRow& row, int64_t point, uint64_t seq, int64_t t, int64_t allocated, int64_t reserved,
               const std::array<int64_t, kCategoryCount>& live) {
  if (row.peak_point < 0 || allocated > row.peak_allocated) {
    row.peak_allocated = allocated;
    row.peak_point = point;
    row.peak_seq = seq;
    row.peak_t = t;
    row.reserved_at_peak = reserved;
    row.at_peak = live;
  }
  row.max_reserved = std::max(row.max_reserved, reserved);
  row.end_point = point + 1;
}

}  // namespace

// A span whose points were added before it arrived, made as the events in file order would have
// made it had it come first (what a reader rebuilding the summaries does): opened at the first
// point at or after its begin (that point inside it even when it lies past the end), closed at the
// first later point at or after its end. Written now when that point exists, else growing from
// here as any span. Its points must still be recent ones; when they are not, the summaries are
// stale (a reader rebuilds them from the events).
void SummaryBuilder::lateSpan(Device& d, const std::shared_ptr<SpanDef>& def) {
  const auto& points = d.recent_state;
  const auto first = std::partition_point(points.begin(), points.end(),
                                          [&](const Device::PointState& s) { return s.t < def->begin; });
  if (first == points.end()) {  // after every point: an ordinary span
    d.pending.emplace(def->begin, def);
    return;
  }
  if (first == points.begin() && d.recent_first > 0) {
    markStale(fmt::format("phase {} arrived after the points it covers on device {} had been let go", def->id, d.id));
    return;
  }
  const auto i = static_cast<size_t>(first - points.begin());
  Device::Active a;
  a.def = def;
  a.row.device = d.id;
  a.row.kind = def->kind;
  a.row.id = def->id;
  a.row.first_point = d.recent_first + static_cast<int64_t>(i);
  a.row.max_reserved = i > 0 ? points[i - 1].reserved : d.reserved_start;
  size_t j = i;
  for (; j < points.size() && (j == i || def->open || points[j].t < def->end); ++j)
    takePoint(a.row, d.recent_first + static_cast<int64_t>(j), d.recent[j], points[j].t, points[j].allocated,
              points[j].reserved, d.recent_live[j]);
  if (j == points.size()) {  // it reaches the latest point: it goes on growing
    d.active.push_back(std::move(a));
    return;
  }
  a.row.begin_ns = def->begin;
  a.row.end_ns = def->end;
  a.row.open = false;
  a.row.categorised = d.categorised_point <= a.row.end_point;
  if (Status st = store_.putSpan(a.row); !st) {
    late_failure_ = st;
    return;
  }
  if (a.row.peak_point >= d.closed_from) d.closed_peaks.emplace(a.row.peak_point, std::pair(a.row.kind, a.row.id));
}

void SummaryBuilder::openSpans(Device& d, int64_t t) {
  while (!d.pending.empty() && d.pending.top().first <= t) {
    auto def = d.pending.top().second;
    d.pending.pop();
    Device::Active a;
    a.def = def;
    a.row.device = d.id;
    a.row.kind = def->kind;
    a.row.id = def->id;
    a.row.first_point = a.row.end_point = d.points();
    a.row.peak_allocated = d.allocated;
    a.row.reserved_at_peak = a.row.max_reserved = d.reserved;
    a.row.at_peak = d.live;
    d.active.push_back(std::move(a));
  }
}

Status SummaryBuilder::closeSpans(Device& d, int64_t t, bool everything) {
  for (size_t i = 0; i < d.active.size();) {
    Device::Active& a = d.active[i];
    if (!everything && (a.def->open || a.def->end > t)) {
      ++i;
      continue;
    }
    a.row.begin_ns = a.def->begin;
    a.row.end_ns = a.def->open ? std::max(a.def->begin, d.axis_last_t[kAllocatorAxis]) : a.def->end;
    a.row.open = false;
    a.row.end_point = d.points();
    a.row.categorised = d.categorised;
    // A span with none of the device's points (a step of another device) is not written.
    if (a.row.end_point > a.row.first_point) {
      if (Status st = store_.putSpan(a.row); !st) return st;
      if (a.row.peak_point >= d.closed_from) d.closed_peaks.emplace(a.row.peak_point, std::pair(a.row.kind, a.row.id));
      while (!d.closed_peaks.empty() && d.closed_peaks.begin()->first < d.recent_first)
        d.closed_peaks.erase(d.closed_peaks.begin());
      d.closed_from = std::max(d.closed_from, d.recent_first);
    }
    d.active[i] = std::move(d.active.back());
    d.active.pop_back();
  }
  return Ok{};
}

Status SummaryBuilder::point(Device& d, int axis, uint64_t seq, int64_t t,
                             std::span<const std::pair<int, int64_t>> values) {
  auto& last_t = d.axis_last_t[static_cast<size_t>(axis)];
  t = std::max(t, last_t);
  last_t = t;
  Status failed = Ok{};
  d.axis(axis).add(seq, t, [&](int level, int64_t node, const AxisNode& n) {
    if (failed) failed = store_.putAxisNode(d.id, axis, level, node, n);
  });
  for (const auto& entry : values) {  // no structured binding: clang 14 (the fuzz preset) cannot capture one
    const auto series = entry.first;
    d.builder(series).add(entry.second, [&](const NodeOut& n) {
      if (failed) failed = store_.putNode(d.id, series, n.level, n.node, n.values);
    });
  }
  return failed;
}

Status SummaryBuilder::categorise(Device& d) {
  if (d.categorised) return Ok{};
  d.categorised = true;
  // Until now every live byte was uncategorised: each layer is the allocated series.
  const PyramidBuilder allocated = d.builder(kAllocated);
  for (int layer = 0; layer < kCategoryLayers; ++layer) {
    d.series[static_cast<size_t>(layerSeries(layer))] = allocated;
    d.series_start[static_cast<size_t>(layerSeries(layer))] = d.allocated_start;
    if (allocated.points() > 0)
      if (Status st = store_.copySeries(d.id, kAllocated, layerSeries(layer), allocated.points()); !st) return st;
  }
  return Ok{};
}

Status SummaryBuilder::add(uint64_t seq, const Event& e) {
  if (seq < next_seq_ && next_seq_ > 0) markStale(fmt::format("event {} came after event {}", seq, next_seq_ - 1));
  next_seq_ = std::max(next_seq_, seq + 1);
  frontier_t_ = std::max(frontier_t_, e.t_ns);
  const int64_t chunk = static_cast<int64_t>(seq / kIndexChunk);
  if (!chunk_ || chunk_->chunk != chunk) {
    if (chunk_)
      if (Status st = store_.putIndex(*chunk_); !st) return st;
    chunk_ = IndexRow{chunk, seq, seq, e.t_ns, e.t_ns};
  } else {
    chunk_->last_seq = seq;
    chunk_->t_min = std::min(chunk_->t_min, e.t_ns);
    chunk_->t_max = std::max(chunk_->t_max, e.t_ns);
  }

  Device& d = device(e.device);
  switch (e.source) {
    case Source::Allocator: {
      const int sign = allocatedSign(e.action);
      const int64_t p = d.points();
      if (sign != 0 && e.category != Category::Unknown) {
        if (Status st = categorise(d); !st) return st;
        d.categorised_point = std::min(d.categorised_point, p);
      }
      const int64_t t = std::max(e.t_ns, d.axis_last_t[kAllocatorAxis]);
      if (Status st = closeSpans(d, t, false); !st) return st;
      openSpans(d, t);
      if (d.machine) {
        if (p == 0 || p % options_.checkpoint_interval == 0) {
          const AllocatorState state =
              d.machine->state(static_cast<int16_t>(d.id), p - 1, p == 0 ? kBeforeTrace : d.last_allocator_seq);
          if (Status st = store_.putCheckpoint(d.id, p, p == 0 ? kBeforeTrace : d.last_allocator_seq, state); !st) return st;
        }
        d.machine->apply(e, seq);
      }
      d.last_allocator_seq = seq;
      if (e.action == Action::Oom)
        if (Status st = store_.putOom(d.id, seq); !st) return st;
      d.allocated = wrappingAdd(d.allocated, wrappingMul(sign, e.size));
      d.reserved = wrappingAdd(d.reserved, wrappingMul(reservedSign(e.action), e.size));
      const auto c = static_cast<size_t>(e.category) < kCategoryCount ? static_cast<size_t>(e.category) : 0;
      d.live[c] = wrappingAdd(d.live[c], wrappingMul(sign, e.size));
      std::array<std::pair<int, int64_t>, 5 + kCategoryLayers> values;
      size_t n = 0;
      values[n++] = {kAllocated, d.allocated};
      values[n++] = {kReserved, d.reserved};
      if (d.machine)
        for (const auto& value : fragmentationOf(*d.machine)) values[n++] = value;
      if (d.categorised) {
        int64_t cumulative = 0;
        for (int layer = 0; layer < kCategoryLayers; ++layer) {
          cumulative = wrappingAdd(cumulative, d.live[static_cast<size_t>(layer)]);
          values[n++] = {layerSeries(layer), cumulative};
        }
      }
      if (Status st = point(d, kAllocatorAxis, seq, e.t_ns, std::span(values.data(), n)); !st) return st;
      for (auto& a : d.active) takePoint(a.row, p, seq, t, d.allocated, d.reserved, d.live);
      d.recent.push_back(seq);
      d.recent_state.push_back({t, d.allocated, d.reserved});
      d.recent_live.push_back(d.live);
      for (size_t k = 0; k < kCategoryCount; ++k) d.recent_peaks[k] = std::max(d.recent_peaks[k], d.live[k]);
      if (d.recent.size() > options_.recent_points) {
        for (size_t k = 0; k < kCategoryCount; ++k)
          d.peaks_sealed[k] = std::max(d.peaks_sealed[k], d.recent_live.front()[k]);
        d.recent.pop_front();
        d.recent_state.pop_front();
        d.recent_live.pop_front();
        ++d.recent_first;
      }
      break;
    }
    case Source::Driver:
      if (e.action == Action::Alloc || e.action == Action::FreeCompleted) {
        const int64_t change = e.action == Action::Alloc ? e.size : wrappingMul(-1, e.size);
        if (Status st = wait(d, Waiting{e.t_ns, seq, kDriverAxis, change}); !st) return st;
      }
      break;
    case Source::Sample:
      if (e.action == Action::Sample)
        if (Status st = wait(d, Waiting{e.t_ns, seq, kSampleAxis, e.size}); !st) return st;
      break;
    case Source::Host: break;
  }
  if (earliest_waiting_ <= INT64_MAX - kLateNs && frontier_t_ >= earliest_waiting_ + kLateNs)
    return sealWaiting(frontier_t_, false);
  return Ok{};
}

Status SummaryBuilder::wait(Device& d, const Waiting& w) {
  // A record whose place has gone (at or before what is sealed) takes the earliest time still open, now.
  if (w.t <= d.sealed_t[static_cast<size_t>(w.axis)]) return seal(d, w);
  d.waiting.insert(w);
  d.waiting_seqs[static_cast<size_t>(w.axis)].insert(w.seq);
  earliest_waiting_ = std::min(earliest_waiting_, w.t);
  return Ok{};
}

Status SummaryBuilder::seal(Device& d, const Waiting& w) {
  auto& sealed = d.sealed_t[static_cast<size_t>(w.axis)];
  const int64_t t = std::max(w.t, sealed);
  sealed = t;
  int64_t value = w.value;
  int series = kDeviceUsed;
  if (w.axis == kDriverAxis) {
    d.driver_value = wrappingAdd(d.driver_value, w.value);
    value = d.driver_value;
    series = kDriver;
  }
  const std::pair<int, int64_t> one{series, value};
  return point(d, w.axis, w.seq, t, std::span(&one, 1));
}

Status SummaryBuilder::sealWaiting(int64_t frontier, bool everything) {
  earliest_waiting_ = INT64_MAX;
  for (auto& [id, dp] : devices_) {
    Device& d = *dp;
    while (!d.waiting.empty()) {
      const Waiting w = *d.waiting.begin();
      if (!everything && !(w.t <= frontier - kLateNs)) {
        earliest_waiting_ = std::min(earliest_waiting_, w.t);
        break;
      }
      d.waiting.erase(d.waiting.begin());
      auto& seqs = d.waiting_seqs[static_cast<size_t>(w.axis)];
      seqs.erase(seqs.find(w.seq));
      if (Status st = seal(d, w); !st) return st;
    }
  }
  return Ok{};
}

Status SummaryBuilder::addCounter(DeviceId id, bool allocated, uint64_t seq, int64_t t_ns, int64_t value) {
  Device& d = device(id);
  const int series = allocated ? kAllocatedCounter : kReservedCounter;
  d.series_start[static_cast<size_t>(series)] = allocated ? d.allocated_start : d.reserved_start;
  const std::pair<int, int64_t> one{series, value};
  return point(d, axisOf(series), seq, t_ns, std::span(&one, 1));
}

Result<int64_t> SummaryBuilder::pointOf(Device& d, uint64_t seq) {
  if (!d.recent.empty() && seq >= d.recent.front()) {
    auto it = std::lower_bound(d.recent.begin(), d.recent.end(), seq);
    if (it != d.recent.end() && *it == seq) return d.recent_first + (it - d.recent.begin());
    return Error{fmt::format("event {} is not an allocator event of device {}", seq, d.id)};
  }
  // Older: the leaf that holds it (the open one, or one found by a binary search over the closed
  // ones), then its events.
  const AxisPyramid& axis = d.axis(kAllocatorAxis);
  const int64_t closed = axis.points() / kLeafPoints;
  Result<AxisNode> leaf = axis.openLeaf();
  int64_t lo = closed;
  if (axis.openLeaf().points == 0 || seq < axis.openLeaf().first_seq) {
    lo = 0;
    int64_t hi = closed - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      auto node = store_.axisNode(d.id, kAllocatorAxis, 0, mid);
      if (!node) return node.error();
      if (node->first_seq <= seq) lo = mid;
      else hi = mid - 1;
    }
    leaf = store_.axisNode(d.id, kAllocatorAxis, 0, lo);
    if (!leaf) return leaf.error();
  }
  std::vector<LeafEvent> events;
  if (Status st = store_.leafEvents(d.id, leaf->first_seq, leaf->last_seq, events); !st) return st.error();
  for (size_t i = 0; i < events.size(); ++i)
    if (events[i].seq == seq) return lo * kLeafPoints + static_cast<int64_t>(i);
  return Error{fmt::format("event {} is not an allocator event of device {}", seq, d.id)};
}

Result<NodeValues> SummaryBuilder::recomputeLeaf(Device& d, int series, int64_t leaf) {
  auto node = store_.axisNode(d.id, kAllocatorAxis, 0, leaf);
  if (!node) return node.error();
  int64_t value = d.series_start[static_cast<size_t>(series)];
  if (leaf > 0) {
    auto before = store_.node(d.id, series, 0, leaf - 1);
    if (!before) return before.error();
    value = before->last;
  }
  std::vector<LeafEvent> events;
  if (Status st = store_.leafEvents(d.id, node->first_seq, node->last_seq, events); !st) return st.error();
  if (events.empty()) return Error{fmt::format("device {}: leaf {} has no events", d.id, leaf)};
  const int layer = series - kFirstCategoryLayer;
  NodeValues out;
  for (size_t i = 0; i < events.size(); ++i) {
    const LeafEvent& e = events[i];
    if (static_cast<int>(e.category) <= layer) value = wrappingAdd(value, wrappingMul(allocatedSign(e.action), e.size));
    out = i == 0 ? single(value) : combine(out, single(value));
  }
  return out;
}

Status SummaryBuilder::shiftLayers(Device& d, int64_t from, int64_t to, Category a, Category b, int64_t bytes) {
  const int lo = std::min(static_cast<int>(a), static_cast<int>(b));
  const int hi = std::max(static_cast<int>(a), static_cast<int>(b));
  // Layer k holds categories 0..k: it loses the bytes when only `a` is in it, gains them when only `b` is.
  const int64_t delta = static_cast<int>(a) < static_cast<int>(b) ? wrappingMul(-1, bytes) : bytes;
  for (int layer = lo; layer < hi && layer < kCategoryLayers; ++layer) {
    const int series = layerSeries(layer);
    PyramidBuilder& builder = d.builder(series);
    const int64_t n = builder.points();
    const int64_t end = std::min(to, n);
    if (from >= end) continue;
    for (int level = 0; level <= topLevel(n); ++level) {
      const int64_t span = nodePoints(level);
      const int64_t closed = n / span;  // nodes 0 .. closed-1 are closed (in the store)
      const int64_t first = from / span, last = std::min((end - 1) / span, closed - 1);
      if (first > last) continue;
      const int64_t first_whole = (from + span - 1) / span, last_whole = std::min(end / span - 1, last);
      if (first_whole <= last_whole)
        if (Status st = store_.shiftNodes(d.id, series, level, first_whole, last_whole, delta); !st) return st;
      // The nodes that straddle an end of the range: recomputed (leaves from their events, the
      // others from their children, moved already).
      std::vector<int64_t> straddling;
      if (first < first_whole || first > last_whole) straddling.push_back(first);
      if (last != first && (last < first_whole || last > last_whole)) straddling.push_back(last);
      for (int64_t node : straddling) {
        Result<NodeValues> values = Error{};
        if (level == 0) {
          values = recomputeLeaf(d, series, node);
        } else {
          std::optional<NodeValues> acc;
          for (int64_t child = node * kFanout; child < (node + 1) * kFanout; ++child) {
            auto c = store_.node(d.id, series, level - 1, child);
            if (!c) return c.error();
            acc = acc ? combine(*acc, *c) : *c;
          }
          values = *acc;
        }
        if (!values) return values.error();
        if (Status st = store_.putNode(d.id, series, level, node, *values); !st) return st;
      }
    }
    Status failed = Ok{};
    builder.shift(from, to, delta, [&](int level, int64_t node) {
      auto values = store_.node(d.id, series, level, node);
      if (!values) {
        if (failed) failed = values.error();
        return NodeValues{};
      }
      return *values;
    });
    if (!failed) return failed;
  }
  return Ok{};
}

Status SummaryBuilder::recategorise(uint64_t seq, DeviceId id, Action action, int64_t size,
                                    Category from, Category to) {
  const int sign = allocatedSign(action);
  if (sign == 0 || from == to || size == 0) return Ok{};
  auto it = devices_.find(id);
  if (it == devices_.end()) return Ok{};
  Device& d = *it->second;
  if (Status st = categorise(d); !st) return st;
  auto p = pointOf(d, seq);
  if (!p) return p.error();
  if (to != Category::Unknown) d.categorised_point = std::min(d.categorised_point, *p);
  // The row counts its bytes in `to` instead of `from` at every point from its own on (whatever
  // other rows of the block say: a free written with its final category meanwhile balances it).
  const int64_t q = INT64_MAX;
  const int64_t bytes = wrappingMul(sign, size);
  d.live[static_cast<size_t>(from)] = wrappingSub(d.live[static_cast<size_t>(from)], bytes);
  d.live[static_cast<size_t>(to)] = wrappingAdd(d.live[static_cast<size_t>(to)], bytes);
  if (*p < d.recent_first) d.peaks_exact = false;
  for (size_t i = static_cast<size_t>(std::max<int64_t>(0, *p - d.recent_first)); i < d.recent_live.size(); ++i) {
    auto& at = d.recent_live[i];
    at[static_cast<size_t>(from)] = wrappingSub(at[static_cast<size_t>(from)], bytes);
    at[static_cast<size_t>(to)] = wrappingAdd(at[static_cast<size_t>(to)], bytes);
  }
  d.recent_peaks_stale = true;
  if (Status st = shiftLayers(d, *p, q, from, to, bytes); !st) return st;
  for (auto& a : d.active)
    if (a.row.peak_point >= *p) {
      a.row.at_peak[static_cast<size_t>(from)] = wrappingSub(a.row.at_peak[static_cast<size_t>(from)], bytes);
      a.row.at_peak[static_cast<size_t>(to)] = wrappingAdd(a.row.at_peak[static_cast<size_t>(to)], bytes);
    }
  if (*p < d.closed_from) return store_.shiftSpans(id, *p, from, to, bytes);
  for (auto span = d.closed_peaks.lower_bound(*p); span != d.closed_peaks.end(); ++span)
    if (Status st = store_.shiftSpan(id, span->second.first, span->second.second, from, to, bytes); !st) return st;
  return Ok{};
}

Status SummaryBuilder::flush() {
  if (!late_failure_) return std::exchange(late_failure_, Ok{});
  // Phases ended a while ago take no more points: the devices that fill them hold their own.
  // (Looked for every quarter of that while: a second of phases is thousands of them.)
  constexpr int64_t kMargin = 1'000'000'000;
  if (swept_t_ == INT64_MIN || frontier_t_ - swept_t_ >= kMargin / 4) {
    swept_t_ = frontier_t_;
    std::erase_if(live_phases_, [&](const auto& kv) {
      const bool done =
          !kv.second->open && kv.second->end <= INT64_MAX - kMargin && kv.second->end + kMargin < frontier_t_;
      if (done) {
        if (swept_phases_.size() <= kv.first) swept_phases_.resize(size_t{kv.first} + 1);
        swept_phases_[kv.first] = true;
      }
      return done;
    });
    std::erase_if(live_steps_, [&](const auto& def) {
      return !def->open && def->end <= INT64_MAX - kMargin && def->end + kMargin < frontier_t_;
    });
  }
  if (chunk_)
    if (Status st = store_.putIndex(*chunk_); !st) return st;
  for (auto& entry : devices_) {  // no structured binding: clang 14 (the fuzz preset) cannot capture one
    const auto id = entry.first;
    Device& d = *entry.second;
    Status failed = Ok{};
    for (int axis = 0; axis < static_cast<int>(kAxisCount); ++axis) {
      if (!d.axes[static_cast<size_t>(axis)]) continue;
      const AxisPyramid& pyramid = *d.axes[static_cast<size_t>(axis)];
      pyramid.openNodes([&](int level, int64_t node, const AxisNode& n) {
        if (failed) failed = store_.putAxisNode(id, axis, level, node, n);
      });
      AxisRow row{id, axis, pyramid.points(), INT64_MIN, UINT64_MAX};
      if (axis == kDriverAxis || axis == kSampleAxis) {
        row.sealed_t = d.sealed_t[static_cast<size_t>(axis)];
        const auto& seqs = d.waiting_seqs[static_cast<size_t>(axis)];
        if (!seqs.empty()) row.pending_from_seq = *seqs.begin();
      }
      if (failed) failed = store_.putAxis(row);
    }
    for (int series = 0; series < static_cast<int>(kSeriesSlots); ++series) {
      if (!d.series[static_cast<size_t>(series)]) continue;
      const PyramidBuilder& builder = *d.series[static_cast<size_t>(series)];
      const int64_t start = d.series_start[static_cast<size_t>(series)];
      builder.openNodes([&](const NodeOut& n) {
        if (failed) failed = store_.putNode(id, series, n.level, n.node, n.values);
      });
      if (failed)
        failed = store_.putSeries(
            SeriesRow{id, series, axisOf(series), start, builder.points(), builder.points() ? builder.current() : start});
    }
    // The axes with no point yet (a driver whose records all wait) say so too.
    for (int axis : {kDriverAxis, kSampleAxis}) {
      if (d.axes[static_cast<size_t>(axis)] || !failed) continue;
      const auto& seqs = d.waiting_seqs[static_cast<size_t>(axis)];
      if (!seqs.empty()) failed = store_.putAxis(AxisRow{id, axis, 0, d.sealed_t[static_cast<size_t>(axis)], *seqs.begin()});
    }
    if (failed && d.points() > 0) failed = store_.putCategoryPeaks(categoryPeaks(d));
    for (const auto& a : d.active) {
      if (!failed) break;
      if (a.row.peak_point < 0) continue;
      SpanRow row = a.row;
      row.begin_ns = a.def->begin;
      row.end_ns = a.def->open ? std::max(a.def->begin, d.axis_last_t[kAllocatorAxis]) : a.def->end;
      row.open = true;
      row.categorised = d.categorised;
      failed = store_.putSpan(row);
    }
    if (!failed) return failed;
  }
  return Ok{};
}

CategoryPeaksRow SummaryBuilder::categoryPeaks(Device& d) {
  if (d.recent_peaks_stale) {
    d.recent_peaks = d.peaks_sealed;
    for (const auto& at : d.recent_live)
      for (size_t k = 0; k < kCategoryCount; ++k) d.recent_peaks[k] = std::max(d.recent_peaks[k], at[k]);
    d.recent_peaks_stale = false;
  }
  CategoryPeaksRow row{d.id, d.peaks_exact, d.categorised, {}};
  for (size_t k = 0; k < kCategoryCount; ++k) row.peak[k] = std::max(d.peaks_sealed[k], d.recent_peaks[k]);
  return row;
}

Status SummaryBuilder::finish() {
  if (Status st = sealWaiting(frontier_t_, true); !st) return st;
  for (auto& [id, d] : devices_) {
    // Spans that begin after the device's last event still say so (no points inside).
    while (!d->pending.empty()) openSpans(*d, d->pending.top().first);
    if (Status st = closeSpans(*d, INT64_MAX, true); !st) return st;
  }
  return flush();
}

size_t SummaryBuilder::bytesResident() const {
  size_t bytes = 0;
  for (const auto& [id, d] : devices_) {
    bytes += d->recent.size() * (sizeof(uint64_t) + sizeof(Device::PointState) + sizeof(d->live)) + d->waiting.size() * 64 +
             kSeriesSlots * (kLeafPoints * 8 + kMaxLevels * kFanout * sizeof(NodeValues));
  }
  return bytes;
}

}  // namespace sawtooth::summary
