#include "core/analysis/trace_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/analysis/category_series.h"

namespace sawtooth {

const SeriesAnalysis* DeviceAnalysis::line(SeriesKind kind) const {
  for (const auto& l : lines)
    if (l.series->kind == kind) return &l;
  return nullptr;
}

TraceAnalysis::TraceAnalysis(std::shared_ptr<const Trace> trace, Progress* progress) : trace_(std::move(trace)) {
  const auto ids = trace_->deviceIds();
  size_t done = 0;
  for (DeviceId id : ids) {
    if (progress && progress->cancelled()) return;
    auto d = std::make_unique<DeviceAnalysis>();
    d->device = id;
    d->series = buildDeviceSeries(*trace_, id);
    // The series live inside *d (heap, never moved), so the pyramids' spans stay valid.
    for (const Series* s : d->series.all()) d->lines.push_back(SeriesAnalysis{s, LodPyramid(s->value), findPeak(*s)});
    const CategoryTimeline timeline = buildCategoryTimeline(*trace_, id);
    if (!timeline.empty() && timeline.live[0].size() == d->series.allocated.size()) {
      auto& stack = d->categories;
      int64_t start = 0;
      for (size_t c = 0; c < kCategoryCount; ++c) {
        start += timeline.start[c];
        stack.cumulative_start[c] = start;
        stack.cumulative[c] = timeline.live[c];
        if (c > 0)
          for (size_t i = 0; i < stack.cumulative[c].size(); ++i) stack.cumulative[c][i] += stack.cumulative[c - 1][i];
      }
      for (size_t c = 0; c < kCategoryCount; ++c) stack.lods.emplace_back(stack.cumulative[c]);
    }
    const auto& ev = trace_->events;
    for (size_t i = 0; i < ev.size(); ++i)
      if (ev.device()[i] == id && ev.action()[i] == Action::Oom) d->oom_events.push_back(i);
    devices_.push_back(std::move(d));
    if (progress) progress->report(++done, ids.size());
  }
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
      if (!l.series->empty()) lo = std::min(lo, static_cast<double>(l.series->xs(by_time).front()));
  return std::isfinite(lo) ? lo : 0.0;
}

double TraceAnalysis::xMax(bool by_time) const {
  double hi = -std::numeric_limits<double>::infinity();
  for (const auto& d : devices_)
    for (const auto& l : d->lines)
      if (!l.series->empty()) hi = std::max(hi, static_cast<double>(l.series->xs(by_time).back()));
  return std::isfinite(hi) ? hi : 1.0;
}

int64_t TraceAnalysis::maxValue() const {
  int64_t m = 0;
  for (const auto& d : devices_)
    for (const auto& l : d->lines) m = std::max(m, l.peak.value);
  return m;
}

int64_t TraceAnalysis::nearestEvent(DeviceId device, double x, bool by_time) const {
  const DeviceAnalysis* d = this->device(device);
  if (!d || d->series.allocated.empty()) return -1;
  const Series& s = d->series.allocated;
  const auto& xs = s.xs(by_time);
  auto it = std::lower_bound(xs.begin(), xs.end(), x, [](int64_t v, double t) { return static_cast<double>(v) < t; });
  size_t i = static_cast<size_t>(it - xs.begin());
  if (i == xs.size()) --i;
  else if (i > 0 && x - static_cast<double>(xs[i - 1]) < static_cast<double>(xs[i]) - x) --i;
  return static_cast<int64_t>(s.event[i]);
}

}  // namespace sawtooth
