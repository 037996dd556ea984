#include "core/analysis/fragmentation_series.h"

#include <algorithm>

namespace sawtooth {

std::string_view FragmentationSeries::lineName(int line) {
  switch (line) {
    case ReservedMinusAllocated: return "reserved − allocated";
    case ExternalFragmentation: return "external fragmentation";
    case LargestFreeBlock: return "largest free block";
    default: return "";
  }
}

FragmentationSeries::FragmentationSeries(std::shared_ptr<const Trace> trace, std::shared_ptr<const AllocatorHistory> history)
    : trace_(std::move(trace)), history_(std::move(history)) {
  for (int line = 0; line < kLines; ++line) {
    const EventSeries& s = values(line);
    pyramids_[line] = LodPyramid(s.values);
    max_[line] = s.start;
    for (int64_t v : s.values) max_[line] = std::max(max_[line], v);
  }
}

const EventSeries& FragmentationSeries::values(int line) const {
  const AllocatorSeries& s = history_->series();
  switch (line) {
    case ExternalFragmentation: return s.external_fragmentation;
    case LargestFreeBlock: return s.largest_free_block;
    default: return s.reserved_minus_allocated;
  }
}

int64_t FragmentationSeries::maxValue(int line) const { return line >= 0 && line < kLines ? max_[line] : 0; }

double FragmentationSeries::xOf(int64_t position, bool by_time) const {
  const auto& evs = history_->events();
  if (evs.empty()) return 0;
  position = std::clamp<int64_t>(position, 0, static_cast<int64_t>(evs.size()) - 1);
  if (!by_time) return static_cast<double>(position);
  return static_cast<double>(trace_->events.tNs()[evs[static_cast<size_t>(position)]]);
}

int64_t FragmentationSeries::positionAt(double x, bool by_time) const {
  const auto& evs = history_->events();
  if (!by_time) return std::clamp<int64_t>(static_cast<int64_t>(x), -1, static_cast<int64_t>(evs.size()) - 1);
  const auto& t = trace_->events.tNs();
  // Events are in time order, so their times along the device's allocator events are too.
  auto it = std::upper_bound(evs.begin(), evs.end(), x, [&](double v, uint64_t e) { return v < static_cast<double>(t[e]); });
  return static_cast<int64_t>(it - evs.begin()) - 1;
}

std::vector<LodPoint> FragmentationSeries::query(int line, bool by_time, double x0, double x1, int columns) const {
  std::vector<LodPoint> out;
  const EventSeries& s = values(line);
  const size_t n = s.values.size();
  if (line < 0 || line >= kLines || n == 0 || columns <= 0 || !(x1 > x0)) return out;
  const LodPyramid& pyramid = pyramids_[line];
  const double width = (x1 - x0) / columns;
  // The value in force at x0: after the last event before it.
  int64_t begin = positionAt(x0, by_time) + 1;  // first event inside the range
  out.push_back({x0, static_cast<double>(s.after(begin - 1))});
  for (int c = 0; c < columns && begin < static_cast<int64_t>(n); ++c) {
    const double right = x0 + width * (c + 1);
    const int64_t end = std::min<int64_t>(static_cast<int64_t>(n), positionAt(right, by_time) + 1);
    if (end <= begin) continue;
    const double centre = std::max(x0 + width * (c + 0.5), xOf(begin, by_time));
    const LodPyramid::Envelope env = pyramid.range(static_cast<size_t>(begin), static_cast<size_t>(end));
    const double first = static_cast<double>(env.min_first ? env.min : env.max);
    const double second = static_cast<double>(env.min_first ? env.max : env.min);
    out.push_back({centre, first});
    if (second != first) out.push_back({centre, second});
    // The step ends at the last value of the column.
    const double last = static_cast<double>(s.values[static_cast<size_t>(end - 1)]);
    if (last != second) out.push_back({centre, last});
    begin = end;
  }
  out.push_back({x1, out.back().y});
  return out;
}

}  // namespace sawtooth
