#include "analysis/category_series.h"

#include <algorithm>

#include "util/wrapping.h"

namespace sawtooth {

CategoryPeaks categoryPeaks(const Trace& trace, int16_t device) {
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

}  // namespace sawtooth
