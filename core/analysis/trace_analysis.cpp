#include "core/analysis/trace_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "core/analysis/category_series.h"
#include "core/analysis/phase_spans.h"
#include "core/util/keyed_hash.h"

namespace sawtooth {

const SeriesAnalysis* DeviceAnalysis::line(SeriesKind kind) const {
  for (const auto& l : lines)
    if (l.series->kind == kind) return &l;
  return nullptr;
}

std::optional<AxisPoint> DeviceAnalysis::nearestAllocatorPoint(double x, bool by_time) const {
  const SeriesAxis& axis = *series.allocator;
  const auto p = axis.nearestPoint(x, by_time);
  if (!p) return std::nullopt;
  return AxisPoint{*p, axis.event[*p], axis.x(*p, by_time)};
}

double DeviceAnalysis::xOfEvent(const Trace& trace, uint64_t event, bool by_time) const {
  if (event >= trace.events.size()) return 0;
  if (by_time) return static_cast<double>(trace.events.tNs()[event]);
  return static_cast<double>(series.indexOfEvent(event));
}

size_t DeviceAnalysis::bytesResident() const {
  size_t bytes = series.bytesResident() + categories.bytesResident() + oom_events.capacity() * sizeof(uint64_t) +
                 index_phase_spans.capacity() * sizeof(PhaseSpan);
  for (const auto& l : lines) bytes += l.lod.bytesResident();
  return bytes;
}

CategoryStack::Columns CategoryStack::query(const SeriesAxis& axis, bool by_time, double x0, double x1, int columns) const {
  Columns out;
  if (empty()) return out;
  const auto xs = axis.xs(by_time);
  for (size_t c = 0; c < kCategoryCount; ++c) {
    // Every column yields one or two points (its minimum and maximum) at the column's centre.
    const auto points = lods[c].query(xs, cumulative_start[c], x0, x1, columns);
    auto& top = out.top[c];
    top.reserve(static_cast<size_t>(columns));
    for (size_t i = 0; i < points.size();) {
      const double cx = points[i].x;
      double highest = points[i].y;
      size_t j = i + 1;
      for (; j < points.size() && points[j].x == cx; ++j) highest = std::max(highest, points[j].y);
      if (c == 0) out.x.push_back(cx);
      top.push_back(highest);
      i = j;
    }
  }
  return out;
}

size_t CategoryStack::bytesResident() const {
  size_t bytes = 0;
  for (const auto& c : cumulative) bytes += c.capacity() * sizeof(int64_t);
  for (const auto& l : lods) bytes += l.bytesResident();
  return bytes;
}

TraceAnalysis::TraceAnalysis(std::shared_ptr<const Trace> trace, Progress* progress) : trace_(std::move(trace)) {
  // Phase names interned: thousands of annotations share a few names.
  std::unordered_map<std::string_view, uint32_t, KeyedHash> name_ids;  // names from the file: keyed
  phase_name_ids_.reserve(trace_->phases.size());
  for (const Phase& p : trace_->phases) {
    auto [it, added] = name_ids.try_emplace(p.name, static_cast<uint32_t>(phase_names_.size()));
    if (added) phase_names_.push_back(p.name);
    phase_name_ids_.push_back(it->second);
  }
  const auto ids = trace_->deviceIds();
  size_t done = 0;
  for (DeviceId id : ids) {
    if (progress && progress->cancelled()) return;
    auto d = std::make_unique<DeviceAnalysis>();
    d->device = id;
    d->series = buildDeviceSeries(*trace_, id);
    // The series live inside *d (heap, never moved), so the pyramids' spans stay valid.
    for (const Series* s : d->series.all()) d->lines.push_back(SeriesAnalysis{s, LodPyramid(s->value), findPeak(*s)});
    CategoryTimeline timeline = buildCategoryTimeline(*trace_, id);
    if (!timeline.empty() && timeline.live[0].size() == d->series.allocatorEvents()) {
      auto& stack = d->categories;
      int64_t start = 0;
      for (size_t c = 0; c < kCategoryCount; ++c) {
        start += timeline.start[c];
        stack.cumulative_start[c] = start;
        stack.cumulative[c] = std::move(timeline.live[c]);
        if (c > 0)
          for (size_t i = 0; i < stack.cumulative[c].size(); ++i) stack.cumulative[c][i] += stack.cumulative[c - 1][i];
      }
      for (size_t c = 0; c < kCategoryCount; ++c) stack.lods.emplace_back(stack.cumulative[c]);
    }
    const auto& ev = trace_->events;
    for (size_t i = 0; i < ev.size(); ++i)
      if (ev.device()[i] == id && ev.action()[i] == Action::Oom) d->oom_events.push_back(i);
    devices_.push_back(std::move(d));
    devices_.back()->index_phase_spans = computePhaseSpans(*this, id, false);
    if (progress) progress->report(++done, ids.size());
  }
  if (!devices_.empty()) time_phase_spans_ = computePhaseSpans(*this, devices_.front()->device, true);
}

const std::vector<PhaseSpan>& TraceAnalysis::phaseSpans(DeviceId id, bool by_time) const {
  static const std::vector<PhaseSpan> none;
  const DeviceAnalysis* d = device(id);
  if (!d) return none;
  return by_time ? time_phase_spans_ : d->index_phase_spans;
}

const DeviceAnalysis* TraceAnalysis::device(DeviceId id) const {
  for (const auto& d : devices_)
    if (d->device == id) return d.get();
  return nullptr;
}

double TraceAnalysis::xMin(bool by_time) const {
  double lo = std::numeric_limits<double>::infinity();
  for (const auto& d : devices_)
    for (const auto& l : d->lines)
      if (!l.series->empty()) lo = std::min(lo, l.series->axis->x(0, by_time));
  return std::isfinite(lo) ? lo : 0.0;
}

double TraceAnalysis::xMax(bool by_time) const {
  double hi = -std::numeric_limits<double>::infinity();
  for (const auto& d : devices_)
    for (const auto& l : d->lines)
      if (!l.series->empty()) hi = std::max(hi, l.series->axis->x(l.series->size() - 1, by_time));
  return std::isfinite(hi) ? hi : 1.0;
}

int64_t TraceAnalysis::maxValue() const {
  int64_t m = 0;
  for (const auto& d : devices_)
    for (const auto& l : d->lines) m = std::max(m, l.peak.value);
  return m;
}

double TraceAnalysis::xOfEvent(uint64_t event, bool by_time) const {
  if (event >= trace_->events.size()) return 0;
  const DeviceAnalysis* d = device(trace_->events.device()[event]);
  return d ? d->xOfEvent(*trace_, event, by_time) : 0;
}

size_t TraceAnalysis::bytesResident() const {
  size_t bytes = time_phase_spans_.capacity() * sizeof(PhaseSpan) + phase_name_ids_.capacity() * sizeof(uint32_t);
  for (const auto& d : devices_) bytes += d->bytesResident();
  return bytes;
}

}  // namespace sawtooth
