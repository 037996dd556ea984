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

std::optional<size_t> SeriesAxis::pointAtOrBefore(uint64_t e) const {
  auto it = std::upper_bound(event.begin(), event.end(), e);
  if (it == event.begin()) return std::nullopt;
  return static_cast<size_t>(it - event.begin()) - 1;
}

std::optional<size_t> SeriesAxis::nearestPoint(double x, bool by_time) const {
  const size_t n = size();
  if (n == 0) return std::nullopt;
  // First point at or after x, then the nearer of it and the one before.
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (this->x(mid, by_time) < x) lo = mid + 1;
    else hi = mid;
  }
  if (lo == n) return n - 1;
  if (lo > 0 && x - this->x(lo - 1, by_time) <= this->x(lo, by_time) - x) return lo - 1;
  return lo;
}

size_t SeriesAxis::bytesResident() const {
  return t_ns.capacity() * sizeof(int64_t) + x_index.capacity() * sizeof(int64_t) + event.capacity() * sizeof(uint64_t);
}

int64_t Series::valueAfterEvent(uint64_t e) const {
  const auto p = axis->pointAtOrBefore(e);
  return p ? value[*p] : start;
}

int64_t Series::valueAtTime(int64_t time) const {
  auto it = std::upper_bound(axis->t_ns.begin(), axis->t_ns.end(), time);
  if (it == axis->t_ns.begin()) return start;
  return value[static_cast<size_t>(it - axis->t_ns.begin()) - 1];
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

int64_t DeviceSeries::indexOfEvent(uint64_t e) const {
  const auto p = allocator->pointAtOrBefore(e);
  return p ? static_cast<int64_t>(*p) : 0;
}

int64_t DeviceSeries::indexAtTime(int64_t time) const {
  return std::lower_bound(allocator->t_ns.begin(), allocator->t_ns.end(), time) - allocator->t_ns.begin();
}

size_t DeviceSeries::bytesResident() const {
  size_t bytes = allocator->bytesResident();
  for (const Series* s : all()) {
    bytes += s->value.capacity() * sizeof(int64_t);
    if (s->axis != allocator) bytes += s->axis->bytesResident();  // a counter's or a timed series' own
  }
  return bytes;
}

namespace {

struct AxisBuilder {
  std::shared_ptr<SeriesAxis> axis = std::make_shared<SeriesAxis>();
  void push(int64_t t, int64_t x, uint64_t event) {
    // Times must not run backwards for drawing and lookup; clamp a source's jitter.
    if (!axis->t_ns.empty()) t = std::max(t, axis->t_ns.back());
    axis->t_ns.push_back(t);
    axis->x_index.push_back(x);
    axis->event.push_back(event);
  }
};

// A counter the source reported (one value per event) replaces the sum of the events.
Series fromCounter(const Trace& trace, const Counter& c, SeriesKind kind, const std::vector<int64_t>& x_of_event,
                   int64_t start) {
  Series s;
  s.kind = kind;
  s.start = start;
  AxisBuilder axis;
  axis.axis->t_ns.reserve(c.value.size());
  axis.axis->x_index.reserve(c.value.size());
  axis.axis->event.reserve(c.value.size());
  s.value.reserve(c.value.size());
  const auto& t = trace.events.tNs();
  uint64_t last = 0;
  for (size_t i = 0; i < c.value.size(); ++i) {
    const uint64_t e = c.after_event[i];
    if (e >= t.size() || (i > 0 && e < last)) continue;  // points stay in event order
    last = e;
    axis.push(t[e], x_of_event[e], e);
    s.value.push_back(c.value[i]);
  }
  s.axis = std::move(axis.axis);
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

  // Each event's x on the index axis: the number of this device's allocator events up to it.
  std::vector<int64_t> x_of_event;
  const Counter* allocated_counter = trace.counter(device, "allocated");
  const Counter* reserved_counter = trace.counter(device, "reserved");
  if (allocated_counter || reserved_counter) x_of_event.assign(ev.size(), 0);

  auto allocator = std::make_shared<SeriesAxis>();
  allocator->t_ns.reserve(count);
  allocator->event.reserve(count);
  Series& allocated = out.allocated;
  Series& reserved = out.reserved;
  allocated.kind = SeriesKind::Allocated;
  reserved.kind = SeriesKind::Reserved;
  allocated.start = info ? info->baseline_allocated : 0;
  reserved.start = info ? info->baseline_reserved : 0;
  if (!allocated_counter) allocated.value.reserve(count);
  if (!reserved_counter) reserved.value.reserve(count);

  int64_t a = allocated.start, r = reserved.start;
  int64_t x = -1;  // index of the latest allocator event seen
  std::vector<uint64_t> driver_events, sample_events;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (dev[i] != device) continue;
    switch (src[i]) {
      case Source::Allocator:
        ++x;
        allocator->t_ns.push_back(allocator->t_ns.empty() ? t[i] : std::max(t[i], allocator->t_ns.back()));
        allocator->event.push_back(i);
        a = wrappingAdd(a, wrappingMul(allocatedSign(act[i]), size[i]));
        r = wrappingAdd(r, wrappingMul(reservedSign(act[i]), size[i]));
        if (!allocated_counter) allocated.value.push_back(a);
        if (!reserved_counter) reserved.value.push_back(r);
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
  out.allocator = allocator;
  if (!allocated_counter) allocated.axis = allocator;
  if (!reserved_counter) reserved.axis = allocator;

  // Driver records and samples may reach the file out of time order (CUPTI delivers them in
  // buffers); they are placed by time, and on the index axis at the allocator event before them.
  auto byTime = [&](std::vector<uint64_t>& idx) {
    std::stable_sort(idx.begin(), idx.end(), [&](uint64_t p, uint64_t q) { return t[p] < t[q]; });
  };
  auto xAt = [&](int64_t time) { return std::max<int64_t>(0, out.indexAtTime(time + 1) - 1); };
  byTime(driver_events);
  byTime(sample_events);
  auto timed = [&](const std::vector<uint64_t>& events, SeriesKind kind, auto value_of) {
    Series s;
    s.kind = kind;
    AxisBuilder axis;
    for (uint64_t i : events) {
      axis.push(t[i], xAt(t[i]), i);
      s.value.push_back(value_of(i));
    }
    // Sorted by time, so the events behind the points are not ascending: lookups by event do
    // not apply to these series (they are looked up by time).
    s.axis = std::move(axis.axis);
    return s;
  };
  int64_t d = 0;
  Series driver = timed(driver_events, SeriesKind::Driver, [&](uint64_t i) {
    d = act[i] == Action::Alloc ? wrappingAdd(d, size[i]) : wrappingSub(d, size[i]);
    return d;
  });
  Series used = timed(sample_events, SeriesKind::DeviceUsed, [&](uint64_t i) { return size[i]; });
  if (allocated_counter) allocated = fromCounter(trace, *allocated_counter, SeriesKind::Allocated, x_of_event, allocated.start);
  if (reserved_counter) reserved = fromCounter(trace, *reserved_counter, SeriesKind::Reserved, x_of_event, reserved.start);
  if (!driver.empty()) out.driver = std::move(driver);
  if (!used.empty()) out.device_used = std::move(used);
  return out;
}

}  // namespace sawtooth
