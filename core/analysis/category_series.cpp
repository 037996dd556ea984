#include "core/analysis/category_series.h"

#include <algorithm>
#include <unordered_map>

#include "core/util/keyed_hash.h"
#include "core/util/wrapping.h"

namespace sawtooth {

CategoryPeaks categoryPeaks(const Trace& trace, DeviceId device) {
  CategoryPeaks out;
  std::array<int64_t, kCategoryCount> live{};
  if (const DeviceInfo* info = trace.device(device)) live[0] = info->baseline_allocated;
  out.peak = live;
  const auto& ev = trace.events;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (ev.device()[i] != device || ev.source()[i] != Source::Allocator) continue;
    const int sign = allocatedSign(ev.action()[i]);
    if (sign == 0) continue;
    const auto c = static_cast<size_t>(ev.category()[i]);
    if (c != 0) out.any_categorised = true;
    live[c] = wrappingAdd(live[c], wrappingMul(sign, ev.sizes()[i]));
    out.peak[c] = std::max(out.peak[c], live[c]);
  }
  return out;
}

CategoryTimeline buildCategoryTimeline(const Trace& trace, DeviceId device) {
  CategoryTimeline out;
  if (!categoryPeaks(trace, device).any_categorised) return out;
  std::array<int64_t, kCategoryCount> live{};
  if (const DeviceInfo* info = trace.device(device)) live[0] = info->baseline_allocated;
  out.start = live;
  const auto& ev = trace.events;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (ev.device()[i] != device || ev.source()[i] != Source::Allocator) continue;
    const int sign = allocatedSign(ev.action()[i]);
    if (sign != 0) live[static_cast<size_t>(ev.category()[i])] += sign * ev.sizes()[i];
    for (size_t c = 0; c < live.size(); ++c) out.live[c].push_back(live[c]);
  }
  return out;
}

std::vector<LiveBlock> liveBlocksAt(const Trace& trace, DeviceId device, uint64_t event) {
  std::unordered_map<uint64_t, LiveBlock, KeyedHash> live;  // addresses from the file: keyed
  const auto& ev = trace.events;
  for (size_t i = 0; i < ev.size() && i <= event; ++i) {
    if (ev.device()[i] != device || ev.source()[i] != Source::Allocator) continue;
    if (ev.action()[i] == Action::Alloc) {
      live[ev.addr()[i]] = LiveBlock{ev.addr()[i], ev.sizes()[i], ev.category()[i], i, ev.stack()[i], ev.phase()[i]};
    } else if (ev.action()[i] == Action::FreeCompleted) {
      live.erase(ev.addr()[i]);
    }
  }
  std::vector<LiveBlock> out;
  out.reserve(live.size());
  for (auto& [addr, b] : live) out.push_back(b);
  std::sort(out.begin(), out.end(), [](const LiveBlock& a, const LiveBlock& b) {
    return a.size != b.size ? a.size > b.size : a.alloc_event < b.alloc_event;
  });
  return out;
}

}  // namespace sawtooth
