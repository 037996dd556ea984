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

std::vector<int16_t> Trace::deviceIds() const {
  std::set<int16_t> ids;
  for (int16_t d : events.device()) ids.insert(d);
  for (const auto& c : counters) ids.insert(c.device);
  for (const auto& d : devices) ids.insert(d.device);
  return {ids.begin(), ids.end()};
}

const DeviceInfo* Trace::device(int16_t id) const {
  auto it = std::find_if(devices.begin(), devices.end(), [&](const DeviceInfo& d) { return d.device == id; });
  return it == devices.end() ? nullptr : &*it;
}

DeviceInfo& Trace::deviceInfo(int16_t id) {
  auto it = std::find_if(devices.begin(), devices.end(), [&](const DeviceInfo& d) { return d.device == id; });
  if (it != devices.end()) return *it;
  DeviceInfo info;
  info.device = id;
  auto pos = std::lower_bound(devices.begin(), devices.end(), id,
                              [](const DeviceInfo& d, int16_t v) { return d.device < v; });
  return *devices.insert(pos, info);
}

const Counter* Trace::counter(int16_t device, std::string_view counter_name) const {
  for (const auto& c : counters)
    if (c.device == device && c.name == counter_name) return &c;
  return nullptr;
}

std::string Trace::deviceName(int16_t id) const {
  const DeviceInfo* info = device(id);
  return info && !info->label.empty() ? info->label : deviceLabel(id);
}

std::string deviceLabel(int16_t device) {
  return device == kCpuDevice ? std::string("cpu") : "cuda:" + std::to_string(device);
}

}  // namespace sawtooth
