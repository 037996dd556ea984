#pragma once
// Live bytes per category (parameter, gradient, optimizer state, ...) on one device, from the
// allocator's alloc / free_completed events and the category each carries.

#include <array>
#include <cstdint>

#include "core/model/trace.h"

namespace sawtooth {

struct CategoryPeaks {
  std::array<int64_t, kCategoryCount> peak{};
  bool any_categorised = false;  // some event carries a category other than unknown
};

// Bytes alive before the trace began count as unknown.
CategoryPeaks categoryPeaks(const Trace& trace, DeviceId device);

// Live bytes per category after each of the device's allocator events (aligned with
// DeviceSeries::allocator_events), for the stacked view. Empty when no event has a category.
struct CategoryTimeline {
  std::array<int64_t, kCategoryCount> start{};
  std::array<std::vector<int64_t>, kCategoryCount> live;
  bool empty() const { return live[0].empty(); }
};
CategoryTimeline buildCategoryTimeline(const Trace& trace, DeviceId device);

// The blocks alive on a device right after a given event (the largest first): what was holding
// the memory when something failed. Blocks from before the trace began are not itemised.
struct LiveBlock {
  uint64_t addr = 0;
  int64_t size = 0;
  Category category = Category::Unknown;
  uint64_t alloc_event = 0;
  uint32_t stack = kNoStack;
  uint32_t phase = kNoPhase;
};
std::vector<LiveBlock> liveBlocksAt(const Trace& trace, DeviceId device, uint64_t event);

}  // namespace sawtooth
