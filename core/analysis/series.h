#pragma once
// Derived memory series of one device, each a step function: the value holds from a point until
// the next. Every series can be drawn against time or against the device's allocator-event index
// (the x axis of the seed's plots).
//   allocated   — live tensor blocks: the allocator's alloc / free_completed (or the source's own
//                 "Total Allocated" counter, torch.profiler);
//   reserved    — the caching allocator's segments (segment_alloc/map, segment_free/unmap, or the
//                 source's "Total Reserved" counter);
//   driver      — driver allocations seen by CUPTI, including memory PyTorch does not own;
//   device_used — sampled cudaMemGetInfo (context included).
//
// Points sit on an axis (time, index, the event behind each point) that series share: allocated
// and reserved both have a point at every allocator event of the device, so they hold one axis
// between them, on which a point's index is its position (no index column is stored).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/model/trace.h"

namespace sawtooth {

enum class SeriesKind : uint8_t { Allocated, Reserved, Driver, DeviceUsed };
inline constexpr int kSeriesKindCount = 4;
std::string_view name(SeriesKind kind);

struct SeriesAxis {
  std::vector<int64_t> t_ns;     // time of each point, non-decreasing
  std::vector<int64_t> x_index;  // the device allocator-event index of each point; empty: its position
  // The trace event behind each point: ascending on the allocator's axis and a counter's; the
  // driver and device-used series are in time order instead (look those up by time).
  std::vector<uint64_t> event;

  size_t size() const { return t_ns.size(); }
  int64_t index(size_t point) const { return x_index.empty() ? static_cast<int64_t>(point) : x_index[point]; }
  // Each point's x on the time or the index axis; an empty span on the index axis means "the
  // point's position" (LodPyramid::query and the lookups below take it so).
  std::span<const int64_t> xs(bool by_time) const { return by_time ? std::span<const int64_t>(t_ns) : x_index; }
  double x(size_t point, bool by_time) const {
    return static_cast<double>(by_time ? t_ns[point] : index(point));
  }
  // The last point whose event is at or before `event`; nothing when every point is after it.
  std::optional<size_t> pointAtOrBefore(uint64_t event) const;
  // The point nearest to x (ties to the earlier), or nothing when the axis is empty.
  std::optional<size_t> nearestPoint(double x, bool by_time) const;
  size_t bytesResident() const;
};

struct Series {
  SeriesKind kind = SeriesKind::Allocated;
  int64_t start = 0;                       // value before the first point
  std::shared_ptr<const SeriesAxis> axis;  // never null
  std::vector<int64_t> value;              // value from this point on

  size_t size() const { return value.size(); }
  bool empty() const { return value.empty(); }
  int64_t valueAt(size_t point) const { return value[point]; }
  // The value in force before point `point` (start for the first).
  int64_t valueBefore(size_t point) const { return point == 0 ? start : value[point - 1]; }
  // The value in force right after trace event `event` (start before the first point).
  int64_t valueAfterEvent(uint64_t event) const;
  // The value in force at time t.
  int64_t valueAtTime(int64_t t_ns) const;
  int64_t t(size_t point) const { return axis->t_ns[point]; }
  uint64_t event(size_t point) const { return axis->event[point]; }
};

struct DeviceSeries {
  DeviceId device = 0;
  // A point per allocator event of the device: position = allocator-event index. Allocated and
  // reserved are on it (unless a source's counter replaced them).
  std::shared_ptr<const SeriesAxis> allocator;
  Series allocated, reserved;
  std::optional<Series> driver, device_used;

  size_t allocatorEvents() const { return allocator->size(); }
  const Series* get(SeriesKind kind) const;
  std::vector<const Series*> all() const;
  // The allocator-event index of a trace event of this device: how many of its allocator events
  // came before it, less one (so an allocator event's own index); 0 before the first.
  int64_t indexOfEvent(uint64_t event) const;
  // Index-axis x of a time: the number of allocator events before it.
  int64_t indexAtTime(int64_t t_ns) const;
  size_t bytesResident() const;
};

DeviceSeries buildDeviceSeries(const Trace& trace, DeviceId device);

}  // namespace sawtooth
