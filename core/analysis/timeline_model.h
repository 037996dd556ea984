#pragma once
// The timeline of one trace, read on demand from its summaries (summary_source.h): what a chart
// draws for any visible window, a finished file of any length or one still being recorded, in
// time proportional to the window's pixels rather than to the trace.
//
// A query over [x0, x1) split into pixel columns reads the level of the series' pyramid whose
// nodes are at most two columns wide, refines a node that reaches past the window or across more
// than three columns (its children, or a leaf's own events), and returns for each column the value
// in force when it begins and the smallest and largest value inside, in the order they occur — as
// LodPyramid::query does in memory. When a column holds fewer than 42 points (a leaf would span
// more than three) the events themselves are read, and the drawing is exact; above that, a node
// counts in every column it touches (a peak may show up to two pixels early or late, never
// missing).
//
// refresh() re-reads the few rows that say how far each series goes: a recording's timeline grows
// by calling it after each poll.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/analysis/lod_pyramid.h"
#include "core/analysis/summary_source.h"
#include "core/analysis/trace_analysis.h"

namespace sawtooth {

class TimelineModel {
 public:
  struct Device {
    DeviceId device = 0;
    int64_t allocator_points = 0;
    int64_t t_first = 0, t_last = 0;  // over all its points
    bool categorised = false;         // it has the category layers
    std::vector<summary::SeriesRow> series;
    const summary::SeriesRow* find(int series) const;
  };

  explicit TimelineModel(std::shared_ptr<summary::SummarySource> source);

  Status refresh();
  const std::vector<Device>& devices() const { return devices_; }
  const Device* device(DeviceId id) const;
  summary::SummarySource& source() { return *source_; }

  // The x extent: time (ns) over every device, or allocator points (0 .. the largest count).
  double xMin(bool by_time) const;
  double xMax(bool by_time) const;

  // About two points per column over [x0, x1) of one series (summary_builder.h's ids) on its
  // device's time axis or allocator-point axis.
  Result<std::vector<LodPoint>> query(DeviceId device, int series, bool by_time, double x0, double x1, int columns);
  // Several series of one axis over the same window at once (their events read once).
  Result<std::vector<std::vector<LodPoint>>> queryMany(DeviceId device, const std::vector<int>& series, bool by_time,
                                                       double x0, double x1, int columns);
  // The stacked categories: the top of each cumulative layer per column (empty without layers).
  Result<CategoryStack::Columns> categories(DeviceId device, bool by_time, double x0, double x1, int columns);

  struct Peak {
    int64_t value = 0;
    int64_t point = -1;  // where first reached; -1: the value before the first point
    uint64_t seq = 0;
    int64_t t_ns = 0;
  };
  Result<Peak> peak(DeviceId device, int series);
  // The number of points of an axis before time t (the allocator axis: exact).
  Result<int64_t> pointAtTime(DeviceId device, int axis, int64_t t);
  // The (clamped) time of an allocator point.
  Result<int64_t> timeOfPoint(DeviceId device, int64_t point);
  // The allocator point whose event is `seq`; for an event that is not one, the number of the
  // device's allocator points before it.
  Result<int64_t> pointOfSeq(DeviceId device, uint64_t seq);
  // The event (seq) of an allocator point.
  Result<uint64_t> seqOfPoint(DeviceId device, int64_t point);
  // An allocator point's (clamped) time and event.
  Result<std::pair<int64_t, uint64_t>> point(DeviceId device, int64_t point);
  // The value of a series after a point (the start before the first).
  Result<int64_t> valueAfter(DeviceId device, int series, int64_t point);

  // What the last query read, for the benchmarks and the status line.
  struct Reads {
    size_t nodes = 0;
    size_t events = 0;
  };
  const Reads& lastReads() const { return reads_; }

 private:
  struct Column;
  class Query;
  // The values of the points of leaves [first, last], their (clamped) times and events, from the
  // events (allocator-axis series).
  struct LeafPoints {
    std::vector<std::vector<int64_t>> values;  // per series asked for
    std::vector<int64_t> times;
    std::vector<uint64_t> seqs;
  };
  Status leafPoints(const Device& d, const std::vector<const summary::SeriesRow*>& series, int64_t first, int64_t last,
                    LeafPoints& out);
  Result<std::vector<int64_t>> valuesAfter(const Device& d, const std::vector<const summary::SeriesRow*>& series,
                                           int64_t point);
  // Down an axis of n points to the first point at or after a key: `side` of a node is -1 when the
  // key is at or before its first point, 1 when after its last, 0 inside. Either the answer
  // (leaf -1), or the leaf to look inside and its first point.
  struct Descent {
    int64_t point = 0;
    int64_t leaf = -1;
  };
  Result<Descent> descend(DeviceId device, int axis, int64_t n, const std::function<int(const summary::AxisNode&)>& side);

  std::shared_ptr<summary::SummarySource> source_;
  std::vector<Device> devices_;
  Reads reads_;
};

}  // namespace sawtooth
