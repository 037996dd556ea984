#include "core/analysis/run_peaks.h"

#include <algorithm>
#include <map>

#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

struct Live {
  RunDevicePeaks peaks;
  int64_t total = 0;
  std::array<int64_t, kCategoryCount> by_category{};
};

}  // namespace

std::vector<RunDevicePeaks> runPeaks(const Trace& trace) {
  std::map<std::pair<uint16_t, DeviceId>, Live> live;
  const EventStore& ev = trace.events;
  std::pair<uint16_t, DeviceId> last_key{kNoRun, 0};
  Live* last = nullptr;  // consecutive events mostly share a run and a device
  for (size_t i = 0; i < ev.size(); ++i) {
    if (ev.run()[i] == kNoRun || ev.source()[i] != Source::Allocator) continue;
    const int sign = allocatedSign(ev.action()[i]);
    if (sign == 0) continue;
    const std::pair<uint16_t, DeviceId> key{ev.run()[i], ev.device()[i]};
    if (!last || key != last_key) {
      auto [it, added] = live.try_emplace(key);
      if (added) {
        it->second.peaks.run = key.first;
        it->second.peaks.device = key.second;
      }
      last = &it->second;
      last_key = key;
    }
    const int64_t delta = wrappingMul(sign, ev.sizes()[i]);
    last->total = wrappingAdd(last->total, delta);
    if (last->total > last->peaks.peak_allocated) {
      last->peaks.peak_allocated = last->total;
      last->peaks.peak_allocated_t_ns = ev.tNs()[i];
    }
    const auto c = static_cast<size_t>(ev.category()[i]);
    if (c != 0) last->peaks.has_categories = true;
    last->by_category[c] = wrappingAdd(last->by_category[c], delta);
    last->peaks.category_peaks[c] = std::max(last->peaks.category_peaks[c], last->by_category[c]);
  }
  std::vector<RunDevicePeaks> out;
  out.reserve(live.size());
  for (auto& [key, l] : live) out.push_back(l.peaks);
  return out;
}

}  // namespace sawtooth
