#pragma once
// The timeline of a recording that is still running: per device the allocated and reserved bytes
// at each allocator event and the sampled device memory in use, against time, each with a
// level-of-detail pyramid that grows with it. append() costs in proportion to the rows it is
// given (the pyramids recompute only their last blocks), query() in proportion to the columns
// drawn, so a refresh stays as fast at 10 M events as at 1 M. The same rules as the finished
// trace's series (core/analysis/series.h): allocatedSign / reservedSign of each allocator event,
// times clamped so that they never run backwards.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/analysis/lod_pyramid.h"
#include "core/analysis/series.h"
#include "core/model/live_rows.h"

namespace sawtooth {

class LiveTimeline {
 public:
  struct Line {
    SeriesKind kind = SeriesKind::Allocated;
    int64_t start = 0;            // the value before the first point
    std::vector<int64_t> value;   // from each point on
    LodPyramid lod;
    int64_t peak = 0;
    int64_t peak_point = -1;      // where first reached; -1: the start value
    bool empty() const { return value.empty(); }
  };
  struct Device {
    DeviceId device = 0;
    std::string name;
    std::string label;            // the file's, where several are followed ("rank 1")
    DeviceId source_device = 0;   // the id in its own file: -1 the CPU, 0.. cuda:N
    std::vector<int64_t> allocator_t;  // time of each allocator event (allocated and reserved share it)
    Line allocated, reserved;
    std::vector<int64_t> sample_t;     // time of each device-used sample
    Line device_used;
  };

  // Baselines and names; a device first seen here starts at its baseline. Devices seen only in
  // events start at zero.
  void setDevices(std::span<const LiveDevice> devices);
  void append(std::span<const LiveRow> rows);

  const std::vector<Device>& devices() const { return devices_; }
  const Device* device(DeviceId id) const;
  uint64_t events() const { return events_; }
  // Time of the first and the latest event (ns); nothing before the first event.
  std::optional<int64_t> firstTime() const { return first_t_; }
  int64_t lastTime() const { return last_t_; }
  int64_t maxValue() const;  // the largest value any line reached, for the y axis

  // About two points per pixel column of [t0, t1) (ns) for one of a device's lines.
  std::vector<LodPoint> query(const Device& device, SeriesKind kind, double t0, double t1, int columns) const;
  size_t bytesResident() const;

 private:
  Device& deviceFor(DeviceId id);

  std::vector<Device> devices_;
  uint64_t events_ = 0;
  std::optional<int64_t> first_t_;
  int64_t last_t_ = 0;
};

}  // namespace sawtooth
