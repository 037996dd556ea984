#pragma once
// Peaks per run and device, counting only the run's own allocator events: its allocations add,
// its frees subtract, from zero at the run's first event. In a merged distributed trace a run
// is a rank, so these are the rank's own bytes even where ranks share a device id (every CPU
// rank is device -1); in a single-process trace they are what the run itself allocated.

#include <array>
#include <cstdint>
#include <vector>

#include "core/model/trace.h"

namespace sawtooth {

struct RunDevicePeaks {
  uint16_t run = kNoRun;
  DeviceId device = 0;
  int64_t peak_allocated = 0;
  int64_t peak_allocated_t_ns = 0;
  std::array<int64_t, kCategoryCount> category_peaks{};  // live bytes per category, peak of each
  bool has_categories = false;                           // some event carries a category
};

// Ordered by run, then device; events outside any run are left out.
std::vector<RunDevicePeaks> runPeaks(const Trace& trace);

}  // namespace sawtooth
