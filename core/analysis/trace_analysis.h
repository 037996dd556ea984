#pragma once
// Everything the views draw from, computed once off the GUI thread: per device the derived
// series, a level-of-detail pyramid and the peak of each, the live bytes stacked by category.
// Immutable once built; shared between the charts, the tables and exports.

#include <array>
#include <memory>
#include <optional>
#include <string>
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
// allocator event (on the device's allocator axis), each with its pyramid. Empty when the trace
// has no categories. Every byte belongs to a layer: the top layer is the allocated series.
struct CategoryStack {
  std::array<std::vector<int64_t>, kCategoryCount> cumulative;
  std::array<int64_t, kCategoryCount> cumulative_start{};
  std::vector<LodPyramid> lods;
  bool empty() const { return lods.empty(); }

  // The top of each layer per pixel column over [x0, x1): the most the layer's cumulative bytes
  // reach in the column (what was in force when the column began included). Layers never cross,
  // and the top layer's value is the allocated envelope's maximum in that column.
  struct Columns {
    std::vector<double> x;                                 // column centres
    std::array<std::vector<double>, kCategoryCount> top;  // per layer, one value per column
  };
  Columns query(const SeriesAxis& axis, bool by_time, double x0, double x1, int columns) const;
  size_t bytesResident() const;
};

// Where a phase lies on a timeline's x axis (core/analysis/phase_spans.h).
struct PhaseSpan {
  uint32_t phase = 0;  // index into Trace::phases
  uint32_t name = 0;   // index into TraceAnalysis::phaseNames(): phases of one name share it
  double x0 = 0, x1 = 0;
};

// A point of a device's allocator axis found from a chart position: its index (the x of the
// index axis), the trace event behind it, and its x on the axis asked for.
struct AxisPoint {
  size_t point = 0;
  uint64_t event = 0;
  double x = 0;
};

struct DeviceAnalysis {
  DeviceId device = 0;
  DeviceSeries series;
  std::vector<SeriesAnalysis> lines;  // allocated, reserved, then driver and device_used when present
  CategoryStack categories;
  std::vector<uint64_t> oom_events;   // global indices of this device's out-of-memory events
  std::vector<PhaseSpan> index_phase_spans;  // the phases on this device's index axis

  const SeriesAnalysis* line(SeriesKind kind) const;
  // The allocator event nearest to x.
  std::optional<AxisPoint> nearestAllocatorPoint(double x, bool by_time) const;
  // The x of a trace event of this device on the time or the index axis.
  double xOfEvent(const Trace& trace, uint64_t event, bool by_time) const;
  size_t bytesResident() const;
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

  // The x of a global event index on the time axis or its device's index axis.
  double xOfEvent(uint64_t event, bool by_time) const;
  // The phases on the time axis, or on a device's index axis (empty for a device not here).
  const std::vector<PhaseSpan>& phaseSpans(DeviceId device, bool by_time) const;
  const std::vector<std::string>& phaseNames() const { return phase_names_; }
  const std::vector<uint32_t>& phaseNameIds() const { return phase_name_ids_; }
  // Bytes the analysis holds (series, axes, pyramids, stacks), the trace not included.
  size_t bytesResident() const;

 private:
  std::shared_ptr<const Trace> trace_;
  std::vector<std::unique_ptr<DeviceAnalysis>> devices_;
  std::vector<std::string> phase_names_;
  std::vector<uint32_t> phase_name_ids_;  // per phase
  std::vector<PhaseSpan> time_phase_spans_;
};

}  // namespace sawtooth
