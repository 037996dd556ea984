#include "core/analysis/timeline_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

using namespace summary;

// Fewer points than this per column: the events are read (a leaf would span more than three columns).
constexpr int64_t kEventLevel = kLeafPoints / 3;
// A node is drawn as it is when it touches at most this many columns (its extremes lie in one of
// them: a peak may show up to two columns early or late, never missing); wider, it is refined.
constexpr int kMaxColumnsPerNode = 3;

bool onAllocatorAxis(int series) { return axisOf(series) == kAllocatorAxis; }
// A series whose leaves' points the events give again (the others are drawn from their nodes).
bool fromEvents(int series) { return onAllocatorAxis(series) && fromEventsAlone(series); }

}  // namespace

const SeriesRow* TimelineModel::Device::find(int id) const {
  for (const SeriesRow& s : series)
    if (s.series == id) return &s;
  return nullptr;
}

TimelineModel::TimelineModel(std::shared_ptr<SummarySource> source) : source_(std::move(source)) {}

Status TimelineModel::refresh() {
  auto series = source_->seriesRows();
  if (!series) return series.error();
  auto axes = source_->axisRows();
  if (!axes) return axes.error();
  std::vector<Device> devices;
  auto deviceFor = [&](DeviceId id) -> Device& {
    for (Device& d : devices)
      if (d.device == id) return d;
    devices.push_back(Device{id, 0, INT64_MAX, INT64_MIN, false, {}});
    return devices.back();
  };
  for (const SeriesRow& s : *series) {
    Device& d = deviceFor(s.device);
    d.series.push_back(s);
    if (s.series >= kFirstCategoryLayer) d.categorised = true;
  }
  for (const AxisRow& a : *axes) {
    Device& d = deviceFor(a.device);
    if (a.axis == kAllocatorAxis) d.allocator_points = a.points;
    if (a.points == 0) continue;
    // The times an axis spans: its top node's.
    std::vector<std::pair<int64_t, AxisNode>> top;
    if (Status st = source_->axisNodes(a.device, a.axis, topLevel(a.points), 0, 0, top); !st) return st;
    if (top.empty()) continue;
    d.t_first = std::min(d.t_first, top[0].second.t_first);
    d.t_last = std::max(d.t_last, top[0].second.t_last);
  }
  for (Device& d : devices)
    if (d.t_first > d.t_last) d.t_first = d.t_last = 0;
  std::sort(devices.begin(), devices.end(), [](const Device& a, const Device& b) { return a.device < b.device; });
  devices_ = std::move(devices);
  return Ok{};
}

const TimelineModel::Device* TimelineModel::device(DeviceId id) const {
  for (const Device& d : devices_)
    if (d.device == id) return &d;
  return nullptr;
}

double TimelineModel::xMin(bool by_time) const {
  if (!by_time) return 0;
  double lo = std::numeric_limits<double>::infinity();
  for (const Device& d : devices_)
    if (d.t_first <= d.t_last) lo = std::min(lo, static_cast<double>(d.t_first));
  return std::isfinite(lo) ? lo : 0.0;
}

double TimelineModel::xMax(bool by_time) const {
  double hi = 0;
  for (const Device& d : devices_)
    hi = std::max(hi, by_time ? static_cast<double>(d.t_last) : static_cast<double>(std::max<int64_t>(d.allocator_points - 1, 0)));
  return hi > xMin(by_time) ? hi : xMin(by_time) + 1;
}

Status TimelineModel::leafPoints(const Device& d, const std::vector<const SeriesRow*>& series, int64_t first,
                                 int64_t last, LeafPoints& out) {
  out = {};
  out.values.resize(series.size());
  std::vector<std::pair<int64_t, AxisNode>> axis;
  if (Status st = source_->axisNodes(d.device, kAllocatorAxis, 0, std::max<int64_t>(0, first - 1), last, axis); !st) return st;
  if (axis.empty() || axis.back().first != last || axis.size() < static_cast<size_t>(last - first + 1))
    return Error{fmt::format("device {}: leaves {}..{} are not all there", d.device, first, last)};
  std::vector<int64_t> v(series.size());
  for (size_t k = 0; k < series.size(); ++k) v[k] = series[k]->start;
  int64_t t = INT64_MIN;
  size_t own = 0;  // the first of the leaves asked for in `axis`
  if (first > 0) {
    for (size_t k = 0; k < series.size(); ++k) {
      std::vector<std::pair<int64_t, NodeValues>> before;
      if (Status st = source_->nodes(d.device, series[k]->series, 0, first - 1, first - 1, before); !st) return st;
      if (before.empty()) return Error{fmt::format("device {}: no leaf {} of series {}", d.device, first - 1, series[k]->series)};
      v[k] = before[0].second.last;
    }
    t = axis[0].second.t_last;
    own = 1;
  }
  std::vector<AllocatorRow> rows;
  if (Status st = source_->allocatorEvents(d.device, axis[own].second.first_seq, axis.back().second.last_seq, rows); !st)
    return st;
  reads_.events += rows.size();
  for (auto& values : out.values) values.reserve(rows.size());
  out.times.reserve(rows.size());
  out.seqs.reserve(rows.size());
  for (const AllocatorRow& r : rows) {
    const int64_t change = wrappingMul(allocatedSign(r.action), r.size);
    for (size_t k = 0; k < series.size(); ++k) {
      const int id = series[k]->series;
      if (id == kReserved) v[k] = wrappingAdd(v[k], wrappingMul(reservedSign(r.action), r.size));
      else if (id == kAllocated || static_cast<int>(r.category) <= id - kFirstCategoryLayer) v[k] = wrappingAdd(v[k], change);
      out.values[k].push_back(v[k]);
    }
    t = std::max(t, r.t_ns);
    out.times.push_back(t);
    out.seqs.push_back(r.seq);
  }
  return Ok{};
}

Result<std::vector<int64_t>> TimelineModel::valuesAfter(const Device& d, const std::vector<const SeriesRow*>& series,
                                                        int64_t point) {
  std::vector<int64_t> out;
  if (point < 0) {
    for (const SeriesRow* s : series) out.push_back(s->start);
    return out;
  }
  const int64_t leaf = point / kLeafPoints;
  const bool allocator = std::all_of(series.begin(), series.end(), [](const SeriesRow* s) { return fromEvents(s->series); });
  const bool leaf_end = point % kLeafPoints == kLeafPoints - 1;
  if (!allocator || leaf_end) {
    // A leaf's last point: its node says (other axes: the leaf before, to a leaf).
    for (const SeriesRow* s : series) {
      const int64_t p = std::min(point, s->points - 1);
      if (p == s->points - 1) {  // the series' last value, whatever its leaf
        out.push_back(s->last);
        continue;
      }
      const int64_t j = !allocator && !leaf_end ? std::max<int64_t>(0, p / kLeafPoints - 1) : p / kLeafPoints;
      std::vector<std::pair<int64_t, NodeValues>> nodes;
      if (Status st = source_->nodes(d.device, s->series, 0, j, j, nodes); !st) return st.error();
      out.push_back(nodes.empty() || (!allocator && !leaf_end && p < kLeafPoints) ? s->start : nodes[0].second.last);
    }
    return out;
  }
  LeafPoints points;
  if (Status st = leafPoints(d, series, leaf, leaf, points); !st) return st.error();
  const auto i = static_cast<size_t>(point % kLeafPoints);
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& values = points.values[k];
    out.push_back(i < values.size() ? values[i] : (values.empty() ? series[k]->start : values.back()));
  }
  return out;
}

struct TimelineModel::Column {
  bool any = false;
  NodeValues env;
};

// One query's state: the window, its columns and what has gone into each, per series.
class TimelineModel::Query {
 public:
  Query(TimelineModel& m, const Device& d, std::vector<const SeriesRow*> series, bool by_time, double x0, double x1,
        int columns)
      : m_(m),
        d_(d),
        series_(std::move(series)),
        by_time_(by_time),
        x0_(x0),
        w_((x1 - x0) / columns),
        cols_(series_.size(), std::vector<Column>(static_cast<size_t>(columns))) {}

  Result<std::vector<std::vector<LodPoint>>> run(int64_t p0, int64_t p1) {
    p0_ = p0;
    p1_ = p1;
    auto before = m_.valuesAfter(d_, series_, p0 - 1);
    if (!before) return before.error();
    if (p1 > p0) {
      const int64_t per_column = (p1 - p0) / static_cast<int64_t>(cols_[0].size());
      const bool allocator =
          std::all_of(series_.begin(), series_.end(), [](const SeriesRow* s) { return fromEvents(s->series); });
      if (per_column < kEventLevel && allocator) {
        if (Status st = leaves(p0 / kLeafPoints, (p1 - 1) / kLeafPoints); !st) return st.error();
      } else {
        // Nodes at most two columns wide: they touch at most three.
        int level = 0;
        while (level + 1 < kMaxLevels && nodePoints(level + 1) <= 2 * per_column) ++level;
        for (size_t k = 0; k < series_.size(); ++k)
          if (Status st = visit(k, level, p0 / nodePoints(level), (p1 - 1) / nodePoints(level)); !st) return st.error();
      }
    }
    std::vector<std::vector<LodPoint>> out(series_.size());
    for (size_t k = 0; k < series_.size(); ++k) {
      auto& points = out[k];
      const auto& cols = cols_[k];
      points.reserve(cols.size() * 2);
      int64_t carried = (*before)[k];
      for (size_t c = 0; c < cols.size(); ++c) {
        const double cx = x0_ + (static_cast<double>(c) + 0.5) * w_;
        if (!cols[c].any) {
          points.push_back({cx, static_cast<double>(carried)});
          continue;
        }
        const NodeValues env = combine(single(carried), cols[c].env);
        points.push_back({cx, static_cast<double>(env.min_first ? env.min : env.max)});
        if (env.min != env.max) points.push_back({cx, static_cast<double>(env.min_first ? env.max : env.min)});
        carried = cols[c].env.last;
      }
    }
    return out;
  }

 private:
  int column(double x) const {
    const double c = std::floor((x - x0_) / w_);
    return static_cast<int>(std::clamp(c, 0.0, static_cast<double>(cols_[0].size() - 1)));
  }
  void add(size_t k, int from, int to, const NodeValues& v) {
    for (int c = from; c <= to; ++c) {
      Column& col = cols_[k][static_cast<size_t>(c)];
      col.env = col.any ? combine(col.env, v) : v;
      col.any = true;
    }
  }
  // Leaves' points one by one, those in the window; every series, or one.
  Status leaves(int64_t first, int64_t last, std::optional<size_t> only = std::nullopt) {
    LeafPoints points;
    std::vector<const SeriesRow*> which = only ? std::vector<const SeriesRow*>{series_[*only]} : series_;
    if (Status st = m_.leafPoints(d_, which, first, last, points); !st) return st;
    for (size_t i = 0; i < points.times.size(); ++i) {
      const int64_t p = first * kLeafPoints + static_cast<int64_t>(i);
      if (p < p0_ || p >= p1_) continue;
      const int c = column(by_time_ ? static_cast<double>(points.times[i]) : static_cast<double>(p));
      for (size_t k = 0; k < which.size(); ++k) add(only ? *only : k, c, c, single(points.values[k][i]));
    }
    return Ok{};
  }
  Status visit(size_t k, int level, int64_t ja, int64_t jb) {
    const SeriesRow& s = *series_[k];
    std::vector<std::pair<int64_t, NodeValues>> nodes;
    std::vector<std::pair<int64_t, AxisNode>> axis;
    if (Status st = m_.source_->nodes(d_.device, s.series, level, ja, jb, nodes); !st) return st;
    if (by_time_)
      if (Status st = m_.source_->axisNodes(d_.device, s.axis, level, ja, jb, axis); !st) return st;
    m_.reads_.nodes += nodes.size() + axis.size();
    const int64_t span = nodePoints(level);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const int64_t j = nodes[i].first;
      const int64_t pa = j * span, pb = std::min(s.points, (j + 1) * span) - 1;
      double xa = static_cast<double>(pa), xb = static_cast<double>(pb);
      if (by_time_) {
        if (i >= axis.size() || axis[i].first != j) return Error{fmt::format("series {}: node {} has no axis node", s.series, j)};
        xa = static_cast<double>(axis[i].second.t_first);
        xb = static_cast<double>(axis[i].second.t_last);
      }
      const bool inside = pa >= p0_ && pb < p1_;
      const int ca = column(xa), cb = column(xb);
      if (inside && cb - ca < kMaxColumnsPerNode) {
        add(k, ca, cb, nodes[i].second);
        continue;
      }
      if (level > 0) {
        const int64_t below = nodePoints(level - 1);
        const int64_t first = std::max(j * kFanout, p0_ / below), last = std::min(j * kFanout + kFanout - 1, (p1_ - 1) / below);
        if (Status st = visit(k, level - 1, first, last); !st) return st;
      } else if (fromEvents(s.series)) {
        if (Status st = leaves(j, j, k); !st) return st;
      } else {
        add(k, std::max(ca, column(by_time_ ? xa : static_cast<double>(std::max(pa, p0_)))), cb, nodes[i].second);
      }
    }
    return Ok{};
  }

  TimelineModel& m_;
  const Device& d_;
  std::vector<const SeriesRow*> series_;
  bool by_time_;
  double x0_, w_;
  std::vector<std::vector<Column>> cols_;
  int64_t p0_ = 0, p1_ = 0;
};

Result<std::vector<LodPoint>> TimelineModel::query(DeviceId id, int series, bool by_time, double x0, double x1,
                                                    int columns) {
  auto many = queryMany(id, {series}, by_time, x0, x1, columns);
  if (!many) return many.error();
  if (many->empty()) return std::vector<LodPoint>{};
  return std::move(many->front());
}

Result<std::vector<std::vector<LodPoint>>> TimelineModel::queryMany(DeviceId id, const std::vector<int>& series_ids,
                                                                    bool by_time, double x0, double x1, int columns) {
  reads_ = {};
  std::vector<std::vector<LodPoint>> none(series_ids.size());
  const Device* d = device(id);
  std::vector<const SeriesRow*> series;
  for (int sid : series_ids) {
    const SeriesRow* s = d ? d->find(sid) : nullptr;
    if (!s || (!series.empty() && s->axis != series.front()->axis)) return none;
    series.push_back(s);
  }
  if (series.empty() || columns <= 0 || !(x1 > x0)) return none;
  const SeriesRow& s = *series.front();
  int64_t p0 = 0, p1 = 0;
  if (!by_time && s.axis != kAllocatorAxis) {
    // Another axis on the allocator-point axis: its points where the allocator points' times put them.
    const int64_t last = std::max<int64_t>(d->allocator_points - 1, 0);
    auto t0 = timeOfPoint(id, std::clamp<int64_t>(static_cast<int64_t>(std::ceil(x0)), 0, last));
    auto t1 = timeOfPoint(id, std::clamp<int64_t>(static_cast<int64_t>(std::floor(x1)), 0, last));
    if (!t0 || !t1) return none;
    if (*t1 <= *t0) *t1 = *t0 + 1;
    auto points = queryMany(id, series_ids, true, static_cast<double>(*t0), static_cast<double>(*t1), columns);
    if (!points) return points.error();
    for (auto& list : *points)
      for (LodPoint& p : list) p.x = x0 + (p.x - static_cast<double>(*t0)) * (x1 - x0) / static_cast<double>(*t1 - *t0);
    return points;
  }
  if (by_time) {
    auto a = pointAtTime(id, s.axis, static_cast<int64_t>(std::ceil(x0)));
    auto b = pointAtTime(id, s.axis, static_cast<int64_t>(std::floor(x1)) + 1);
    if (!a) return a.error();
    if (!b) return b.error();
    p0 = *a;
    p1 = *b;
  } else {
    p0 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(x0)), 0, s.points);
    p1 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(x1)) + 1, 0, s.points);
  }
  Query q(*this, *d, series, by_time, x0, x1, columns);
  return q.run(p0, p1);
}

Result<CategoryStack::Columns> TimelineModel::categories(DeviceId id, bool by_time, double x0, double x1, int columns) {
  CategoryStack::Columns out;
  const Device* d = device(id);
  if (!d || !d->categorised) return out;
  std::vector<int> layers;
  for (int layer = 0; layer < kCategoryCount; ++layer) layers.push_back(layer < kCategoryLayers ? layerSeries(layer) : kAllocated);
  auto all = queryMany(id, layers, by_time, x0, x1, columns);
  if (!all) return all.error();
  for (size_t layer = 0; layer < all->size(); ++layer) {
    const auto& points = (*all)[layer];
    auto& top = out.top[layer];
    for (size_t i = 0; i < points.size();) {
      const double cx = points[i].x;
      double highest = points[i].y;
      size_t j = i + 1;
      for (; j < points.size() && points[j].x == cx; ++j) highest = std::max(highest, points[j].y);
      if (layer == 0) out.x.push_back(cx);
      top.push_back(highest);
      i = j;
    }
  }
  return out;
}

Result<TimelineModel::Descent> TimelineModel::descend(DeviceId id, int axis, int64_t n,
                                                      const std::function<int(const AxisNode&)>& side) {
  int level = topLevel(n);
  int64_t j = 0;
  std::vector<std::pair<int64_t, AxisNode>> nodes;
  if (Status st = source_->axisNodes(id, axis, level, 0, 0, nodes); !st) return st.error();
  if (nodes.empty()) return Descent{0, -1};
  if (const int at = side(nodes[0].second); at != 0) return Descent{at < 0 ? 0 : n, -1};
  // Down to the leaf holding the first point at or after the key.
  while (level > 0) {
    nodes.clear();
    if (Status st = source_->axisNodes(id, axis, level - 1, j * kFanout, j * kFanout + kFanout - 1, nodes); !st)
      return st.error();
    --level;
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const auto& node) { return side(node.second) <= 0; });
    if (it == nodes.end()) return Descent{std::min(n, (j + 1) * nodePoints(level + 1)), -1};
    j = it->first;
    if (side(it->second) < 0) return Descent{j * nodePoints(level), -1};
  }
  return Descent{j * kLeafPoints, j};
}

Result<int64_t> TimelineModel::pointAtTime(DeviceId id, int axis, int64_t t) {
  const Device* d = device(id);
  if (!d) return int64_t{0};
  int64_t n = 0;
  for (const SeriesRow& s : d->series)
    if (s.axis == axis) n = std::max(n, s.points);
  if (n == 0) return int64_t{0};
  auto found = descend(id, axis, n, [t](const AxisNode& node) { return t <= node.t_first ? -1 : t > node.t_last ? 1 : 0; });
  if (!found) return found.error();
  if (found->leaf < 0 || axis != kAllocatorAxis) return found->point;  // other axes: to a leaf
  LeafPoints points;
  if (Status st = leafPoints(*d, {d->find(kAllocated)}, found->leaf, found->leaf, points); !st) return st.error();
  return found->point + (std::lower_bound(points.times.begin(), points.times.end(), t) - points.times.begin());
}

Result<int64_t> TimelineModel::pointOfSeq(DeviceId id, uint64_t seq) {
  const Device* d = device(id);
  const SeriesRow* s = d ? d->find(kAllocated) : nullptr;
  if (!s || s->points == 0) return int64_t{0};
  auto found = descend(id, kAllocatorAxis, s->points, [seq](const AxisNode& node) {
    return seq <= node.first_seq ? -1 : seq > node.last_seq ? 1 : 0;
  });
  if (!found) return found.error();
  if (found->leaf < 0) return found->point;
  LeafPoints points;
  if (Status st = leafPoints(*d, {s}, found->leaf, found->leaf, points); !st) return st.error();
  return std::min(s->points, found->point + (std::lower_bound(points.seqs.begin(), points.seqs.end(), seq) - points.seqs.begin()));
}

Result<std::pair<int64_t, uint64_t>> TimelineModel::point(DeviceId id, int64_t point) {
  const Device* d = device(id);
  const SeriesRow* s = d ? d->find(kAllocated) : nullptr;
  if (!s || point < 0 || point >= s->points) return Error{fmt::format("device {}: no allocator point {}", id, point)};
  LeafPoints points;
  if (Status st = leafPoints(*d, {s}, point / kLeafPoints, point / kLeafPoints, points); !st) return st.error();
  const auto i = static_cast<size_t>(point % kLeafPoints);
  if (i >= points.times.size() || i >= points.seqs.size())
    return Error{fmt::format("device {}: leaf of point {} is short", id, point)};
  return std::pair{points.times[i], points.seqs[i]};
}

Result<int64_t> TimelineModel::timeOfPoint(DeviceId id, int64_t p) {
  auto at = point(id, p);
  if (!at) return at.error();
  return at->first;
}

Result<uint64_t> TimelineModel::seqOfPoint(DeviceId id, int64_t p) {
  auto at = point(id, p);
  if (!at) return at.error();
  return at->second;
}

Result<int64_t> TimelineModel::valueAfter(DeviceId id, int series, int64_t point) {
  const Device* d = device(id);
  const SeriesRow* s = d ? d->find(series) : nullptr;
  if (!s) return int64_t{0};
  auto values = valuesAfter(*d, {s}, std::min(point, s->points - 1));
  if (!values) return values.error();
  return values->front();
}

Result<TimelineModel::Peak> TimelineModel::peak(DeviceId id, int series) {
  const Device* d = device(id);
  const SeriesRow* s = d ? d->find(series) : nullptr;
  Peak out;
  if (!s) return out;
  out.value = s->start;
  if (s->points == 0) return out;
  int level = topLevel(s->points);
  std::vector<std::pair<int64_t, NodeValues>> nodes;
  if (Status st = source_->nodes(id, series, level, 0, 0, nodes); !st) return st.error();
  if (nodes.empty() || nodes[0].second.max <= s->start) return out;
  const int64_t value = nodes[0].second.max;
  int64_t j = 0;
  while (level > 0) {
    nodes.clear();
    if (Status st = source_->nodes(id, series, level - 1, j * kFanout, j * kFanout + kFanout - 1, nodes); !st)
      return st.error();
    --level;
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.second.max == value; });
    if (it == nodes.end()) return Error{fmt::format("series {} of device {}: its pyramid does not hold its peak", series, id)};
    j = it->first;
  }
  out.value = value;
  if (!fromEvents(series)) {
    std::vector<std::pair<int64_t, AxisNode>> axis;
    if (Status st = source_->axisNodes(id, s->axis, 0, j, j, axis); !st) return st.error();
    out.point = j * kLeafPoints;
    if (!axis.empty()) {
      out.seq = axis[0].second.first_seq;
      out.t_ns = axis[0].second.t_first;
    }
    return out;
  }
  LeafPoints points;
  if (Status st = leafPoints(*d, {s}, j, j, points); !st) return st.error();
  const auto& values = points.values.front();
  const auto it = std::find(values.begin(), values.end(), value);
  if (it == values.end()) return Error{fmt::format("series {} of device {}: its leaf {} does not hold its peak", series, id, j)};
  const auto i = static_cast<size_t>(it - values.begin());
  out.point = j * kLeafPoints + static_cast<int64_t>(i);
  out.t_ns = points.times[i];
  out.seq = points.seqs[i];
  return out;
}

}  // namespace sawtooth
