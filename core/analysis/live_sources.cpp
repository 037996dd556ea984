#include "core/analysis/live_sources.h"

#include <algorithm>
#include <optional>

namespace sawtooth {

DeviceId LiveSourceMap::idOf(size_t source, DeviceId device) {
  if (source == 0) return device;
  auto [at, added] = ids_.try_emplace({source, device}, next_);
  if (added && next_ < kLastId) ++next_;
  return at->second;
}

void LiveSourceMap::remap(size_t source, const std::string& label, std::vector<LiveDevice>& devices,
                          std::vector<LiveRow>& rows) {
  for (LiveDevice& d : devices) {
    d.source_device = d.device;
    d.label = label;
    d.device = idOf(source, d.device);
  }
  // Rows come in runs of one device: the previous row's answer is reused.
  std::optional<DeviceId> from;
  DeviceId to = 0;
  for (LiveRow& row : rows) {
    if (row.device != from) {
      from = row.device;
      to = idOf(source, row.device);
      const bool listed = std::any_of(devices.begin(), devices.end(), [&](const LiveDevice& d) { return d.device == to; });
      if (!listed && source != 0) devices.push_back(LiveDevice{to, "", 0, 0, label, row.device});  // baseline zero
    }
    row.device = to;
  }
}

}  // namespace sawtooth
