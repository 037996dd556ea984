#pragma once
// How a chart's axes are scaled: tick steps of 1, 2 or 5 × 10^k, the byte unit that suits a range
// (a 15 GB axis reads in GB, not as 15000 MB), and the y range that fits what is visible — by
// default the visible data (a 17 MB sawtooth on a 1.13 GB baseline fills the height), or from
// zero when asked.

#include <string_view>

namespace sawtooth {

// A step of 1, 2 or 5 × 10^k giving about `ticks` intervals over `range` (1 for an empty range).
double niceStep(double range, int ticks);
// Decimals that show a step without rounding it away (0 for steps of 1 and more).
int decimalsFor(double step);

struct ByteUnit {
  std::string_view name;  // "B", "kB", "MB", "GB", "TB" (decimal, as formatBytes)
  double bytes = 1;       // bytes per unit
};
// The largest unit in which `max_abs_bytes` is at least 1 (B for less than 1 kB).
ByteUnit byteUnitFor(double max_abs_bytes);

struct ValueRange {
  double lo = 0, hi = 1;
};
// The y range for data spanning [data_lo, data_hi]: from zero when `keep_zero`, else hugging the
// data with a margin below; `headroom` above (room for labels). Both ends rounded outward to the
// tick step; never empty.
ValueRange fitValueRange(double data_lo, double data_hi, bool keep_zero, double headroom = 0.12, int ticks = 6);

}  // namespace sawtooth
