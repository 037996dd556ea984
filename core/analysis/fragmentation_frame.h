#pragma once
// The fragmentation chart of a trace read on demand (issue 25): the allocator's fragmentation
// series that the summaries keep (summary_builder.h: reserved − allocated, external fragmentation,
// the largest free block, after each allocator event of a device whose allocator state is
// replayed), drawn a window at a time as the timeline is: its extent and largest value when the
// file opens, then for each window about two points per pixel column, computed off the GUI thread.
// Each column is the envelope of the events in it down to a leaf of 128 allocator events: the
// deepest zoom draws a leaf's envelope across the columns it covers (the values between are the
// allocator's state, which the events alone do not give), unless the trace's tables are given:
// then a window of fewer than 42 allocator events a column is replayed from the nearest allocator
// state the summaries store (at most 65,536 events before it) and drawn exactly as the trace read
// whole draws it. Plain values: they cross threads by copy.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/analysis/lod_pyramid.h"
#include "core/analysis/timeline_model.h"
#include "core/util/result.h"

namespace sawtooth {

inline constexpr int kFragmentationLines = 3;  // the order of FragmentationSeries::Line

struct FragmentationExtent {
  DeviceId device = 0;
  int64_t points = 0;  // allocator events
  double x_min_time = 0, x_max_time = 1;
  int64_t max_value = 0;  // over the three lines
  double xMin(bool by_time) const { return by_time ? x_min_time : 0; }
  double xMax(bool by_time) const { return by_time ? x_max_time : static_cast<double>(std::max<int64_t>(points - 1, 1)); }
};

struct FragmentationRequest {
  uint64_t id = 0;
  DeviceId device = 0;
  bool by_time = false;
  double x0 = 0, x1 = 1;
  int columns = 0;
  bool sameWindow(const FragmentationRequest& o) const {
    return device == o.device && by_time == o.by_time && x0 == o.x0 && x1 == o.x1 && columns == o.columns;
  }
};

struct FragmentationFrame {
  FragmentationRequest request;
  std::array<std::vector<LodPoint>, kFragmentationLines> lines;
};

// Nothing when the device has no fragmentation series (no allocator state replayed, or a file
// written before the summaries kept them) or no segment ever (nothing for the allocator to fragment).
Result<std::optional<FragmentationExtent>> fragmentationExtent(TimelineModel& model, DeviceId device);
// `tables`: the trace without its events (its allocator settings), for the exact replay at event level.
Result<FragmentationFrame> fragmentationFrame(TimelineModel& model, const FragmentationRequest& request,
                                              const Trace* tables = nullptr);
// The allocator event at or before x on the chart's axis (-1: before the first).
Result<int64_t> fragmentationPositionAt(TimelineModel& model, DeviceId device, double x, bool by_time);

}  // namespace sawtooth
