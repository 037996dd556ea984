#include "core/analysis/series.h"

#include <algorithm>

#include "core/util/wrapping.h"

namespace sawtooth {

std::string_view name(SeriesKind kind) {
  switch (kind) {
    case SeriesKind::Allocated: return "allocated";
    case SeriesKind::Reserved: return "reserved";
    case SeriesKind::Driver: return "driver";
    case SeriesKind::DeviceUsed: return "device_used";
  }
  return "?";
}

const Series* DeviceSeries::get(SeriesKind kind) const {
  switch (kind) {
    case SeriesKind::Allocated: return &allocated;
    case SeriesKind::Reserved: return &reserved;
    case SeriesKind::Driver: return driver ? &*driver : nullptr;
    case SeriesKind::DeviceUsed: return device_used ? &*device_used : nullptr;
  }
  return nullptr;
}

std::vector<const Series*> DeviceSeries::all() const {
  std::vector<const Series*> out{&allocated, &reserved};
  if (driver) out.push_back(&*driver);
  if (device_used) out.push_back(&*device_used);
  return out;
}

namespace {

void pushPoint(Series& s, int64_t t, int64_t x, int64_t value, uint64_t event) {
  // Times must not run backwards for drawing and lookup; clamp a source's jitter.
  if (!s.t_ns.empty()) t = std::max(t, s.t_ns.back());
  s.t_ns.push_back(t);
  s.x_index.push_back(x);
  s.value.push_back(value);
  s.event.push_back(event);
}

void reserveSeries(Series& s, size_t n) {
  s.t_ns.reserve(n);
  s.x_index.reserve(n);
  s.value.reserve(n);
  s.event.reserve(n);
}

// A counter the source reported (one value per event) replaces the sum of the events.
Series fromCounter(const Trace& trace, const Counter& c, SeriesKind kind, const std::vector<int64_t>& x_of_event,
                   int64_t start) {
  Series s;
  s.kind = kind;
  s.start = start;
  reserveSeries(s, c.value.size());
  const auto& t = trace.events.tNs();
  for (size_t i = 0; i < c.value.size(); ++i) {
    const uint64_t e = c.after_event[i];
    if (e >= t.size()) continue;
    pushPoint(s, t[e], x_of_event[e], c.value[i], e);
  }
  return s;
}

}  // namespace

DeviceSeries buildDeviceSeries(const Trace& trace, DeviceId device) {
  DeviceSeries out;
  out.device = device;
  const auto& ev = trace.events;
  const auto& dev = ev.device();
  const auto& src = ev.source();
  const auto& act = ev.action();
  const auto& t = ev.tNs();
  const auto& size = ev.sizes();
  const DeviceInfo* info = trace.device(device);

  size_t count = 0;
  for (size_t i = 0; i < ev.size(); ++i)
    if (dev[i] == device && src[i] == Source::Allocator) ++count;
  out.allocator_events.reserve(count);

  // Each event's x on the index axis: the number of this device's allocator events up to it.
  std::vector<int64_t> x_of_event;
  const Counter* allocated_counter = trace.counter(device, "allocated");
  const Counter* reserved_counter = trace.counter(device, "reserved");
  if (allocated_counter || reserved_counter) x_of_event.assign(ev.size(), 0);

  Series& allocated = out.allocated;
  Series& reserved = out.reserved;
  allocated.kind = SeriesKind::Allocated;
  reserved.kind = SeriesKind::Reserved;
  allocated.start = info ? info->baseline_allocated : 0;
  reserved.start = info ? info->baseline_reserved : 0;
  reserveSeries(allocated, allocated_counter ? 0 : count);
  reserveSeries(reserved, reserved_counter ? 0 : count);

  int64_t a = allocated.start, r = reserved.start;
  int64_t x = -1;  // index of the latest allocator event seen
  std::vector<uint64_t> driver_events, sample_events;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (dev[i] != device) continue;
    switch (src[i]) {
      case Source::Allocator:
        ++x;
        out.allocator_events.push_back(i);
        a = wrappingAdd(a, wrappingMul(allocatedSign(act[i]), size[i]));
        r = wrappingAdd(r, wrappingMul(reservedSign(act[i]), size[i]));
        if (!allocated_counter) pushPoint(allocated, t[i], x, a, i);
        if (!reserved_counter) pushPoint(reserved, t[i], x, r, i);
        break;
      case Source::Driver:
        if (act[i] == Action::Alloc || act[i] == Action::FreeCompleted) driver_events.push_back(i);
        break;
      case Source::Sample:
        if (act[i] == Action::Sample) sample_events.push_back(i);
        break;
      case Source::Host:
        break;
    }
    if (!x_of_event.empty()) x_of_event[i] = std::max<int64_t>(x, 0);
  }

  // Driver records and samples may reach the file out of time order (CUPTI delivers them in
  // buffers); they are placed by time, and on the index axis at the allocator event before them.
  auto byTime = [&](std::vector<uint64_t>& idx) {
    std::stable_sort(idx.begin(), idx.end(), [&](uint64_t p, uint64_t q) { return t[p] < t[q]; });
  };
  auto xAt = [&](int64_t time) -> int64_t {
    auto it = std::upper_bound(out.allocator_events.begin(), out.allocator_events.end(), time,
                               [&](int64_t v, uint64_t e) { return v < t[e]; });
    return std::max<int64_t>(0, (it - out.allocator_events.begin()) - 1);
  };
  byTime(driver_events);
  byTime(sample_events);
  Series driver, used;
  driver.kind = SeriesKind::Driver;
  used.kind = SeriesKind::DeviceUsed;
  int64_t d = 0;
  for (uint64_t i : driver_events) {
    d = act[i] == Action::Alloc ? wrappingAdd(d, size[i]) : wrappingSub(d, size[i]);
    pushPoint(driver, t[i], xAt(t[i]), d, i);
  }
  for (uint64_t i : sample_events) pushPoint(used, t[i], xAt(t[i]), size[i], i);
  if (allocated_counter) allocated = fromCounter(trace, *allocated_counter, SeriesKind::Allocated, x_of_event, allocated.start);
  if (reserved_counter) reserved = fromCounter(trace, *reserved_counter, SeriesKind::Reserved, x_of_event, reserved.start);
  if (!driver.empty()) out.driver = std::move(driver);
  if (!used.empty()) out.device_used = std::move(used);
  return out;
}

}  // namespace sawtooth
