#pragma once
// The peak of a series: its value, where it is first reached, and the event and phase behind it.

#include <cstdint>
#include <string>

#include "core/analysis/series.h"

namespace sawtooth {

struct Peak {
  int64_t value = 0;
  // Point index in the series where the peak is first reached; -1 when the starting value is
  // the peak (nothing in the trace exceeded what was there before it began).
  int64_t point = -1;
  int64_t t_ns = 0;
  int64_t x_index = -1;                  // allocator-event index on the device
  uint64_t event = UINT64_MAX;           // global event index, UINT64_MAX when point < 0
};

Peak findPeak(const Series& series);
int64_t finalValue(const Series& series);

// "alloc of 16.0 MiB during forward" — for labels and tooltips.
std::string describePeakEvent(const Trace& trace, const Peak& peak);

}  // namespace sawtooth
