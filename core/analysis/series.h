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

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/model/trace.h"

namespace sawtooth {

enum class SeriesKind : uint8_t { Allocated, Reserved, Driver, DeviceUsed };
inline constexpr int kSeriesKindCount = 4;
std::string_view name(SeriesKind kind);

struct Series {
  SeriesKind kind = SeriesKind::Allocated;
  int64_t start = 0;             // value before the first point
  std::vector<int64_t> t_ns;     // time of each point, non-decreasing
  std::vector<int64_t> x_index;  // the device allocator-event index of each point, non-decreasing
  std::vector<int64_t> value;    // value from this point on
  std::vector<uint64_t> event;   // the trace event behind each point

  size_t size() const { return value.size(); }
  bool empty() const { return value.empty(); }
  int64_t valueAt(size_t point) const { return value[point]; }
  // The value in force at point index i (start for i < 0).
  int64_t valueBefore(size_t point) const { return point == 0 ? start : value[point - 1]; }
  const std::vector<int64_t>& xs(bool by_time) const { return by_time ? t_ns : x_index; }
};

struct DeviceSeries {
  DeviceId device = 0;
  // Global event indices of this device's allocator events: position = allocator-event index.
  std::vector<uint64_t> allocator_events;
  Series allocated, reserved;
  std::optional<Series> driver, device_used;

  const Series* get(SeriesKind kind) const;
  std::vector<const Series*> all() const;
};

DeviceSeries buildDeviceSeries(const Trace& trace, DeviceId device);

}  // namespace sawtooth
