#pragma once
// What the timeline chart draws when a trace is read on demand (timeline_model.h): an overview
// (devices, their series, the x extent, the peaks: a few rows, read when the file is opened and
// each time a recording grows) and, for each visible window, a frame (about two points per pixel
// column of every line, the stacked categories, the phase bands) that the chart asks for and the
// app computes off the GUI thread. Plain values: they cross threads by copy.

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/lod_pyramid.h"
#include "core/analysis/series.h"
#include "core/analysis/timeline_model.h"
#include "core/analysis/trace_analysis.h"
#include "core/util/result.h"

namespace sawtooth {

struct TimelineOverview {
  struct Device {
    DeviceId device = 0;
    std::string name;                 // "cuda:0"
    std::vector<SeriesKind> kinds;    // the lines it has, in drawing order
    bool categorised = false;
    int64_t points = 0;               // allocator events
    int64_t peak = 0;                 // allocated
    int64_t peak_point = -1;
    int64_t peak_t_ns = 0;
    uint64_t peak_event = 0;
    int64_t peak_reserved = 0;
  };
  std::vector<Device> devices;
  double x_min_time = 0, x_max_time = 1, x_max_index = 1;
  int64_t max_value = 0;
  uint64_t events = 0;
  std::vector<std::string> phase_names;  // for the legend (the first few)

  double xMin(bool by_time) const { return by_time ? x_min_time : 0; }
  double xMax(bool by_time) const { return by_time ? x_max_time : x_max_index; }
  const Device* device(DeviceId id) const;
};

struct TimelineRequest {
  uint64_t id = 0;
  bool by_time = true;
  double x0 = 0, x1 = 1;
  int columns = 0;
  bool stacked = false;
  bool bands = true;
  std::vector<DeviceId> devices;  // empty: every device
  bool sameWindow(const TimelineRequest& o) const {
    return by_time == o.by_time && x0 == o.x0 && x1 == o.x1 && columns == o.columns && stacked == o.stacked &&
           bands == o.bands && devices == o.devices;
  }
};

struct TimelineFrame {
  TimelineRequest request;
  struct Line {
    DeviceId device = 0;
    SeriesKind kind = SeriesKind::Allocated;
    std::vector<LodPoint> points;
  };
  std::vector<Line> lines;
  struct Stack {
    DeviceId device = 0;
    CategoryStack::Columns columns;
  };
  std::vector<Stack> stacks;
  // The phases in the window on its x axis (on the index axis, the first device's), merged where
  // narrower than a column (a name for each, as the bands draw them).
  struct Band {
    std::string name;
    bool annotation = false;
    double x0 = 0, x1 = 0;
  };
  std::vector<Band> bands;
  size_t reads = 0;  // nodes and events read for it
};

// The series that draws a line of a device (a source's own counter replaces the events' sum,
// series.cpp), and whether the device draws that line at all.
int seriesFor(const TimelineModel::Device& d, SeriesKind kind);
bool drawsLine(const TimelineModel::Device& d, SeriesKind kind);

// The overview from a model (refreshed by the caller); names for the devices from `names`
// ("cuda:0" by default).
Result<TimelineOverview> overviewOf(TimelineModel& model);
// The frame of a window. Phases come from `phases` (the file's phases table read by time).
Result<TimelineFrame> frameOf(TimelineModel& model, const TimelineRequest& request);

}  // namespace sawtooth
