#pragma once
// The allocator's fragmentation over a trace, drawn under the timeline on the same x axis (time or
// allocator-event index): reserved − allocated, external fragmentation (free bytes outside the
// largest free block) and the largest free block, one value after each allocator event of the
// device (AllocatorSeries). Each line answers a visible range with about two points per pixel
// column (the exact envelope of each column, from a level-of-detail pyramid), so that 10 M events
// draw as fast as 10 k.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/allocator_history.h"
#include "core/analysis/lod_pyramid.h"
#include "core/model/trace.h"

namespace sawtooth {

class FragmentationSeries {
 public:
  enum Line { ReservedMinusAllocated, ExternalFragmentation, LargestFreeBlock, kLines };
  static std::string_view lineName(int line);

  // `trace` and `history` must outlive the series (it reads their events and values).
  FragmentationSeries(std::shared_ptr<const Trace> trace, std::shared_ptr<const AllocatorHistory> history);
  FragmentationSeries(const FragmentationSeries&) = delete;
  FragmentationSeries& operator=(const FragmentationSeries&) = delete;

  int16_t device() const { return history_->device(); }
  size_t events() const { return history_->events().size(); }
  const EventSeries& values(int line) const;
  // The x of the allocator event at `position` on the chosen axis (ns, or the position itself).
  double xOf(int64_t position, bool by_time) const;
  // The extent of the x axis (first and last event).
  double xMin(bool by_time) const { return xOf(0, by_time); }
  double xMax(bool by_time) const { return xOf(static_cast<int64_t>(events()) - 1, by_time); }
  // The position of the last allocator event at or before x (-1: before the first).
  int64_t positionAt(double x, bool by_time) const;
  // About two points per column over [x0, x1), the value in force at x0 included.
  std::vector<LodPoint> query(int line, bool by_time, double x0, double x1, int columns) const;
  int64_t maxValue(int line) const;

 private:
  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const AllocatorHistory> history_;
  LodPyramid pyramids_[kLines];
  int64_t max_[kLines] = {};
};

}  // namespace sawtooth
