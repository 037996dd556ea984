#pragma once
// Live bytes per category (parameter, gradient, optimizer state, ...) on one device, from the
// allocator's alloc / free_completed events and the category each carries.

#include <array>
#include <cstdint>

#include "model/trace.h"

namespace sawtooth {

struct CategoryPeaks {
  std::array<int64_t, kCategoryCount> peak{};
  bool any_categorised = false;  // some event carries a category other than unknown
};

// Bytes alive before the trace began count as unknown.
CategoryPeaks categoryPeaks(const Trace& trace, int16_t device);

}  // namespace sawtooth
