#pragma once
// Everything the views draw from, computed once off the GUI thread: per device the derived
// series, a level-of-detail pyramid and the peak of each. Immutable once built; shared between
// the chart, the tables and exports.

#include <array>
#include <memory>
#include <vector>

#include "core/analysis/lod_pyramid.h"
#include "core/analysis/peaks.h"
#include "core/analysis/series.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"

namespace sawtooth {

struct SeriesAnalysis {
  const Series* series = nullptr;
  LodPyramid lod;
  Peak peak;
};

// Stacked categories: cumulative live bytes (unknown, unknown + parameter, ...), one value per
// allocator event, each with its pyramid. Empty when the trace has no categories.
struct CategoryStack {
  std::array<std::vector<int64_t>, kCategoryCount> cumulative;
  std::array<int64_t, kCategoryCount> cumulative_start{};
  std::vector<LodPyramid> lods;
  bool empty() const { return lods.empty(); }
};

struct DeviceAnalysis {
  DeviceId device = 0;
  DeviceSeries series;
  std::vector<SeriesAnalysis> lines;  // allocated, reserved, then driver and device_used when present
  CategoryStack categories;
  std::vector<uint64_t> oom_events;   // global indices of this device's out-of-memory events

  const SeriesAnalysis* line(SeriesKind kind) const;
};

class TraceAnalysis {
 public:
  explicit TraceAnalysis(std::shared_ptr<const Trace> trace, Progress* progress = nullptr);
  TraceAnalysis(const TraceAnalysis&) = delete;
  TraceAnalysis& operator=(const TraceAnalysis&) = delete;

  const Trace& trace() const { return *trace_; }
  std::shared_ptr<const Trace> sharedTrace() const { return trace_; }
  const std::vector<std::unique_ptr<DeviceAnalysis>>& devices() const { return devices_; }
  const DeviceAnalysis* device(DeviceId id) const;

  // Extent of the x axis over all devices: time in ns, or allocator-event index.
  double xMin(bool by_time) const;
  double xMax(bool by_time) const;
  int64_t maxValue() const;  // the largest value of any series, for the y axis

  // The allocator event of `device` nearest to x (a global event index), or -1.
  int64_t nearestEvent(DeviceId device, double x, bool by_time) const;

 private:
  std::shared_ptr<const Trace> trace_;
  std::vector<std::unique_ptr<DeviceAnalysis>> devices_;
};

}  // namespace sawtooth
