#include "core/model/trace.h"

#include <algorithm>
#include <set>

namespace sawtooth {

const Measurement* Run::measurement(std::string_view measurement_name) const {
  for (const auto& m : measurements)
    if (m.name == measurement_name) return &m;
  return nullptr;
}

std::vector<double> Run::samples(std::string_view measurement_name) const {
  std::vector<double> out;
  for (const auto& m : measurements)
    if (m.name == measurement_name) out.push_back(m.value);
  return out;
}

std::optional<std::string> Run::configValue(std::string_view key) const {
  for (const auto& [k, v] : config)
    if (k == key) return v;
  return std::nullopt;
}

std::vector<DeviceId> Trace::deviceIds() const {
  std::set<DeviceId> ids;
  bool any = false;
  DeviceId last = 0;
  for (DeviceId d : events.device()) {
    if (any && d == last) continue;  // events come in long runs of one device
    ids.insert(d);
    any = true;
    last = d;
  }
  for (const auto& c : counters) ids.insert(c.device);
  for (const auto& d : devices) ids.insert(d.device);
  return {ids.begin(), ids.end()};
}

namespace {
auto byDevice = [](const DeviceInfo& d, DeviceId v) { return d.device < v; };
}  // namespace

const DeviceInfo* Trace::device(DeviceId id) const {
  auto it = std::lower_bound(devices.begin(), devices.end(), id, byDevice);
  return it != devices.end() && it->device == id ? &*it : nullptr;
}

DeviceInfo& Trace::deviceInfo(DeviceId id) {
  // Kept sorted: a binary search finds the entry, and entries added in ascending order (as every
  // reader adds them) go at the end.
  if (!devices.empty() && devices.back().device < id) {
    devices.push_back(DeviceInfo{});
    devices.back().device = id;
    return devices.back();
  }
  auto pos = std::lower_bound(devices.begin(), devices.end(), id, byDevice);
  if (pos != devices.end() && pos->device == id) return *pos;
  DeviceInfo info;
  info.device = id;
  return *devices.insert(pos, info);
}

const Counter* Trace::counter(DeviceId device, std::string_view counter_name) const {
  for (const auto& c : counters)
    if (c.device == device && c.name == counter_name) return &c;
  return nullptr;
}

std::string Trace::deviceName(DeviceId id) const {
  const DeviceInfo* info = device(id);
  return info && !info->label.empty() ? info->label : deviceLabel(id);
}

std::string deviceLabel(DeviceId device) {
  return device == kCpuDevice ? std::string("cpu") : "cuda:" + std::to_string(device);
}

}  // namespace sawtooth
