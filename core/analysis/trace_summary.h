#pragma once
// What `sawtooth-trace info` reports: counts, and per device the peaks and final values.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/invariants.h"
#include "core/analysis/peaks.h"
#include "core/analysis/run_peaks.h"
#include "core/model/trace.h"

namespace sawtooth {

struct DeviceSummary {
  DeviceId device = 0;
  size_t events = 0;            // every event of the device, all sources
  size_t allocator_events = 0;  // the x range of the index axis
  Peak peak_allocated;
  int64_t final_allocated = 0;
  Peak peak_reserved;
  size_t oom_events = 0;
  std::map<SeriesKind, int64_t> series_peaks;  // every series present
  std::array<int64_t, kCategoryCount> category_peaks{};  // live bytes per category, peak of each
  bool has_categories = false;
  InvariantReport invariants;
};

struct TraceSummary {
  std::string format;
  size_t events = 0;
  std::map<std::string, size_t> actions;
  std::vector<DeviceSummary> devices;
  std::vector<RunDevicePeaks> run_peaks;  // per run and device (the ranks of a distributed trace)
};

TraceSummary summarize(const Trace& trace);

}  // namespace sawtooth
