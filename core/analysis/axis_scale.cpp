#include "core/analysis/axis_scale.h"

#include <algorithm>
#include <cmath>

namespace sawtooth {

double niceStep(double range, int ticks) {
  if (!(range > 0) || !std::isfinite(range)) return 1;
  const double raw = range / std::max(1, ticks);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude * (1 + 1e-9)) return m * magnitude;
  return 10 * magnitude;
}

int decimalsFor(double step) {
  if (!(step > 0) || step >= 1) return 0;
  return std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 12);
}

ByteUnit byteUnitFor(double max_abs_bytes) {
  static constexpr ByteUnit units[] = {{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}};
  const double a = std::fabs(max_abs_bytes);
  for (const ByteUnit& u : units)
    if (a >= u.bytes) return u;
  return {"B", 1};
}

ValueRange fitValueRange(double data_lo, double data_hi, bool keep_zero, double headroom, int ticks) {
  if (!std::isfinite(data_lo) || !std::isfinite(data_hi)) return {0, 1};
  if (data_hi < data_lo) std::swap(data_lo, data_hi);
  double lo = keep_zero ? std::min(0.0, data_lo) : data_lo;
  double hi = keep_zero ? std::max(0.0, data_hi) : data_hi;
  double span = hi - lo;
  if (span <= 0) {
    // A flat line: a band around it (or up from zero).
    span = std::max(std::fabs(hi) * 0.1, 1.0);
    if (!keep_zero) lo -= span / 2;
    hi = lo + span;
  }
  if (!keep_zero) lo -= span * 0.05;
  hi += span * headroom;
  if (keep_zero && data_lo >= 0) lo = 0;
  // Outward to the ticks, so the axis starts and ends on a labelled value.
  const double step = niceStep(hi - lo, ticks);
  lo = std::floor(lo / step) * step;
  hi = std::ceil(hi / step) * step;
  if (!keep_zero && data_lo >= 0 && lo < 0) lo = 0;  // bytes are never negative: do not show below zero
  return {lo, hi};
}

}  // namespace sawtooth
