#include "core/analysis/live_timeline.h"

#include <algorithm>

#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

void pushTime(std::vector<int64_t>& t, int64_t time) {
  t.push_back(t.empty() ? time : std::max(time, t.back()));
}

void pushValue(LiveTimeline::Line& line, int64_t value) {
  const int64_t before = line.value.empty() ? line.start : line.peak;
  if (value > before) line.peak_point = static_cast<int64_t>(line.value.size());
  line.peak = std::max(before, value);
  line.value.push_back(value);
}

}  // namespace

LiveTimeline::Device& LiveTimeline::deviceFor(DeviceId id) {
  for (Device& d : devices_)
    if (d.device == id) return d;
  Device d;
  d.device = id;
  d.source_device = id;
  d.allocated.kind = SeriesKind::Allocated;
  d.reserved.kind = SeriesKind::Reserved;
  d.device_used.kind = SeriesKind::DeviceUsed;
  auto at = std::lower_bound(devices_.begin(), devices_.end(), id,
                             [](const Device& a, DeviceId b) { return a.device < b; });
  return *devices_.insert(at, std::move(d));
}

void LiveTimeline::setDevices(std::span<const LiveDevice> devices) {
  for (const LiveDevice& info : devices) {
    Device& d = deviceFor(info.device);
    d.name = info.name;
    d.label = info.label;
    d.source_device = info.source_device.value_or(info.device);
    if (d.allocator_t.empty()) {  // a baseline applies from the start only
      d.allocated.start = d.allocated.peak = info.baseline_allocated;
      d.reserved.start = d.reserved.peak = info.baseline_reserved;
    }
  }
}

void LiveTimeline::append(std::span<const LiveRow> rows) {
  if (rows.empty()) return;
  Device* d = nullptr;  // the device of the previous row: rows come in runs of one device
  for (const LiveRow& row : rows) {
    first_t_ = first_t_ ? std::min(*first_t_, row.t_ns) : row.t_ns;  // files followed together start apart
    last_t_ = std::max(last_t_, row.t_ns);
    if (row.source != Source::Allocator && !(row.source == Source::Sample && row.action == Action::Sample)) continue;
    // deviceFor may move the devices when it adds one; the pointer is taken again then.
    if (!d || d->device != row.device) d = &deviceFor(row.device);
    if (row.source == Source::Allocator) {
      pushTime(d->allocator_t, row.t_ns);
      const int64_t a = d->allocated.value.empty() ? d->allocated.start : d->allocated.value.back();
      const int64_t r = d->reserved.value.empty() ? d->reserved.start : d->reserved.value.back();
      pushValue(d->allocated, wrappingAdd(a, wrappingMul(allocatedSign(row.action), row.size)));
      pushValue(d->reserved, wrappingAdd(r, wrappingMul(reservedSign(row.action), row.size)));
    } else {
      pushTime(d->sample_t, row.t_ns);
      pushValue(d->device_used, row.size);
    }
  }
  events_ += rows.size();
  for (Device& each : devices_) {
    for (Line* line : {&each.allocated, &each.reserved, &each.device_used})
      if (line->lod.size() != line->value.size()) line->lod.extend(line->value);
  }
}

const LiveTimeline::Device* LiveTimeline::device(DeviceId id) const {
  for (const Device& d : devices_)
    if (d.device == id) return &d;
  return nullptr;
}

int64_t LiveTimeline::maxValue() const {
  int64_t most = 0;
  for (const Device& d : devices_)
    for (const Line* line : {&d.allocated, &d.reserved, &d.device_used})
      if (!line->empty()) most = std::max(most, line->peak);
  return most;
}

std::vector<LodPoint> LiveTimeline::query(const Device& device, SeriesKind kind, double t0, double t1,
                                          int columns) const {
  const Line* line = kind == SeriesKind::Allocated  ? &device.allocated
                     : kind == SeriesKind::Reserved ? &device.reserved
                     : kind == SeriesKind::DeviceUsed ? &device.device_used
                                                      : nullptr;
  if (!line || line->empty()) return {};
  const auto& t = kind == SeriesKind::DeviceUsed ? device.sample_t : device.allocator_t;
  return line->lod.query(t, line->start, t0, t1, columns);
}

size_t LiveTimeline::bytesResident() const {
  size_t bytes = devices_.capacity() * sizeof(Device);
  for (const Device& d : devices_) {
    bytes += (d.allocator_t.capacity() + d.sample_t.capacity()) * sizeof(int64_t);
    for (const Line* line : {&d.allocated, &d.reserved, &d.device_used})
      bytes += line->value.capacity() * sizeof(int64_t) + line->lod.bytesResident();
  }
  return bytes;
}

}  // namespace sawtooth
