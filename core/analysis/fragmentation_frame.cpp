#include "core/analysis/fragmentation_frame.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/allocator_machine.h"
#include "core/analysis/allocator_rules.h"

namespace sawtooth {
namespace {

using namespace summary;

constexpr int kLines[kFragmentationLines] = {kReservedMinusAllocated, kExternalFragmentation, kLargestFreeBlock};
constexpr int64_t kExactPerColumn = 42;  // below this, the timeline reads the events too
constexpr uint64_t kSeqsPerRead = 65536;

std::array<int64_t, kFragmentationLines> valuesOf(const AllocatorMachine& m) {
  const AllocatorMachine::Fragmentation f = m.fragmentation();
  return {f.reserved_minus_allocated, f.external, f.largest_free};
}

// A window's points drawn as FragmentationSeries::query draws the trace read whole: the value in
// force at x0, then for each column holding events (those after its left edge, up to its right)
// its first extreme, its second and the value it ends on, at its centre (or its first event), and
// the last value held to x1. `xs`/`values`: the window's points; `carried`: the value before them.
std::vector<LodPoint> columnsOf(const std::vector<int64_t>& xs, const std::vector<int64_t>& values, int64_t carried,
                                const FragmentationRequest& r) {
  std::vector<LodPoint> out;
  const size_t n = xs.size();
  const double width = (r.x1 - r.x0) / r.columns;
  size_t i = 0;
  for (; i < n && static_cast<double>(xs[i]) <= r.x0; ++i) carried = values[i];
  out.push_back({r.x0, static_cast<double>(carried)});
  for (int c = 0; c < r.columns && i < n; ++c) {
    const double right = r.x0 + width * (c + 1);
    size_t end = i;
    while (end < n && static_cast<double>(xs[end]) <= right) ++end;
    if (end <= i) continue;
    const double centre = std::max(r.x0 + width * (c + 0.5), static_cast<double>(xs[i]));
    int64_t lo = values[i], hi = values[i];
    size_t at_lo = i, at_hi = i;
    for (size_t j = i + 1; j < end; ++j) {
      if (values[j] < lo) lo = values[j], at_lo = j;
      if (values[j] > hi) hi = values[j], at_hi = j;
    }
    const bool min_first = at_lo <= at_hi;
    const double first = static_cast<double>(min_first ? lo : hi), second = static_cast<double>(min_first ? hi : lo);
    out.push_back({centre, first});
    if (second != first) out.push_back({centre, second});
    const double last = static_cast<double>(values[end - 1]);
    if (last != second) out.push_back({centre, last});
    i = end;
  }
  out.push_back({r.x1, out.back().y});
  return out;
}

// Points [p0, p1) of the device replayed from the nearest stored state: each line's columns as the
// trace read whole draws them (LodPyramid::query over the window's values). Nothing when the
// summaries store no state for the device.
Result<std::optional<FragmentationFrame>> replayed(TimelineModel& model, const Trace& tables,
                                                   const FragmentationRequest& request, int64_t p0, int64_t p1) {
  SummarySource& source = model.source();
  auto checkpoint = source.checkpointAtOrBefore(request.device, p0);
  if (!checkpoint) return checkpoint.error();
  if (!*checkpoint) return std::optional<FragmentationFrame>();
  const SummarySource::Checkpoint& cp = **checkpoint;
  AllocatorMachine machine(allocatorSettings(tables));
  machine.reset(cp.state);
  int64_t t = INT64_MIN;
  if (cp.position > 0) {
    auto before = model.timeOfPoint(request.device, cp.position - 1);
    if (!before) return before.error();
    t = *before;
  }
  std::array<int64_t, kFragmentationLines> carried = valuesOf(machine);
  std::array<std::vector<int64_t>, kFragmentationLines> values;
  std::vector<int64_t> xs;
  auto count = source.eventCount();
  if (!count) return count.error();
  int64_t applied = cp.position;
  std::vector<EventRow> rows;
  for (uint64_t from = cp.seq == kBeforeTrace ? 0 : cp.seq + 1; from < *count && applied < p1;) {
    const uint64_t last = std::min(*count - 1, from + (kSeqsPerRead - 1));
    if (Status st = source.events(from, last, request.device, Source::Allocator, rows); !st) return st.error();
    for (const EventRow& row : rows) {
      if (applied >= p1) break;
      machine.apply(row.event, row.seq);
      t = std::max(t, row.event.t_ns);
      const auto v = valuesOf(machine);
      if (applied < p0) {
        carried = v;
      } else {
        for (size_t k = 0; k < v.size(); ++k) values[k].push_back(v[k]);
        xs.push_back(request.by_time ? t : applied);
      }
      ++applied;
    }
    from = last + 1;
  }
  FragmentationFrame frame;
  frame.request = request;
  for (size_t k = 0; k < values.size(); ++k) frame.lines[k] = columnsOf(xs, values[k], carried[k], request);
  return std::optional<FragmentationFrame>(std::move(frame));
}

}  // namespace

Result<std::optional<FragmentationExtent>> fragmentationExtent(TimelineModel& model, DeviceId device) {
  const TimelineModel::Device* d = model.device(device);
  if (!d) return std::optional<FragmentationExtent>();
  FragmentationExtent out;
  out.device = device;
  out.points = d->allocator_points;
  out.x_min_time = static_cast<double>(d->t_first);
  out.x_max_time = std::max(static_cast<double>(d->t_last), out.x_min_time + 1);
  // A device whose allocator holds no segment (a CPU's, a recording without segment events): no
  // state to measure fragmentation in, as the trace read whole has no replay of it.
  auto reserved = model.peak(device, kReserved);
  if (!reserved) return reserved.error();
  if (reserved->value <= 0) {
    auto stored = model.source().segmentStoredAtOrBefore(device, INT64_MAX);
    if (!stored) return stored.error();
    if (!*stored) return std::optional<FragmentationExtent>();
  }
  for (int series : kLines) {
    const SeriesRow* s = d->find(series);
    if (!s) return std::optional<FragmentationExtent>();
    auto peak = model.peak(device, series);
    if (!peak) return peak.error();
    out.max_value = std::max(out.max_value, peak->value);
  }
  return std::optional<FragmentationExtent>(out);
}

Result<FragmentationFrame> fragmentationFrame(TimelineModel& model, const FragmentationRequest& request,
                                              const Trace* tables) {
  const TimelineModel::Device* d = model.device(request.device);
  if (tables && d && request.columns > 0 && request.x1 > request.x0) {
    int64_t p0 = 0, p1 = 0;
    if (request.by_time) {
      auto a = model.pointAtTime(request.device, kAllocatorAxis, static_cast<int64_t>(std::ceil(request.x0)));
      if (!a) return a.error();
      auto b = model.pointAtTime(request.device, kAllocatorAxis, static_cast<int64_t>(std::floor(request.x1)) + 1);
      if (!b) return b.error();
      p0 = *a;
      p1 = *b;
    } else {
      p0 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(request.x0)), 0, d->allocator_points);
      p1 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(request.x1)) + 1, 0, d->allocator_points);
    }
    if (p1 - p0 < kExactPerColumn * request.columns) {
      auto exact = replayed(model, *tables, request, p0, p1);
      if (!exact) return exact.error();
      if (*exact) return std::move(**exact);
    }
  }
  FragmentationFrame frame;
  frame.request = request;
  auto lines = model.queryMany(request.device, {kLines[0], kLines[1], kLines[2]}, request.by_time, request.x0,
                               request.x1, request.columns);
  if (!lines) return lines.error();
  for (size_t k = 0; k < lines->size() && k < frame.lines.size(); ++k) frame.lines[k] = std::move((*lines)[k]);
  return frame;
}

Result<int64_t> fragmentationPositionAt(TimelineModel& model, DeviceId device, double x, bool by_time) {
  const TimelineModel::Device* d = model.device(device);
  if (!d || d->allocator_points == 0) return int64_t{-1};
  if (!by_time) return std::clamp<int64_t>(static_cast<int64_t>(std::floor(x)), -1, d->allocator_points - 1);
  // The points at or before x: those before x + 1 ns.
  auto after = model.pointAtTime(device, kAllocatorAxis, static_cast<int64_t>(std::floor(x)) + 1);
  if (!after) return after.error();
  return std::min<int64_t>(*after, d->allocator_points) - 1;
}

}  // namespace sawtooth
