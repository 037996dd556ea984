#pragma once
// allocated ≤ reserved ≤ driver ≤ device used must hold at every instant of a capture; the gaps are
// the story (fragmentation, cache, memory PyTorch does not own, the CUDA context). Checked at every
// device-used sample (and at every point of the allocator series for allocated ≤ reserved).

#include <cstdint>
#include <string>

#include "core/analysis/series.h"

namespace sawtooth {

struct InvariantReport {
  size_t samples_checked = 0;     // device-used samples
  size_t points_checked = 0;      // allocator points (allocated ≤ reserved)
  size_t violations = 0;
  std::string first_violation;    // empty when none
  bool has_driver = false;
  bool has_device_used = false;
};

InvariantReport checkMemoryOrder(const Trace& trace, const DeviceSeries& series);

}  // namespace sawtooth
