// The timeline's axes: the y range that fits the visible data, the unit that suits it.

#include <gtest/gtest.h>

#include "core/analysis/axis_scale.h"

namespace sawtooth {
namespace {

TEST(AxisScale, NiceSteps) {
  EXPECT_DOUBLE_EQ(niceStep(10, 5), 2);
  EXPECT_DOUBLE_EQ(niceStep(17e6, 6), 5e6);
  EXPECT_DOUBLE_EQ(niceStep(1, 10), 0.1);
  EXPECT_DOUBLE_EQ(niceStep(0, 6), 1);
  EXPECT_EQ(decimalsFor(0.05), 2);
  EXPECT_EQ(decimalsFor(5), 0);
  EXPECT_EQ(decimalsFor(0.001), 3);
}

TEST(AxisScale, TheUnitFollowsTheRange) {
  EXPECT_EQ(byteUnitFor(15e9).name, "GB");  // gpt2: 15 GB reads in GB, not 15000 MB
  EXPECT_EQ(byteUnitFor(640e6).name, "MB");
  EXPECT_EQ(byteUnitFor(999).name, "B");
  EXPECT_EQ(byteUnitFor(1.2e12).name, "TB");
  EXPECT_DOUBLE_EQ(byteUnitFor(2e3).bytes, 1e3);
}

TEST(AxisScale, FitsASmallSawtoothOnALargeBaseline) {
  // 17 MB of sawtooth on 1.13 GB: fitted, it fills the height instead of a flat line at the top.
  const double base = 1.13e9, peak = base + 17e6;
  const ValueRange fitted = fitValueRange(base, peak, false);
  EXPECT_LE(fitted.lo, base);
  EXPECT_GE(fitted.hi, peak);
  EXPECT_GT(fitted.lo, 1e9);
  EXPECT_LT(fitted.hi - fitted.lo, 40e6);  // the 17 MB take at least ~40 % of the height
  const ValueRange zero = fitValueRange(base, peak, true);
  EXPECT_EQ(zero.lo, 0);
  EXPECT_GE(zero.hi, peak * 1.1);
}

TEST(AxisScale, NeverEmptyNeverBelowZeroForBytes) {
  const ValueRange flat = fitValueRange(5e6, 5e6, false);
  EXPECT_LT(flat.lo, 5e6);
  EXPECT_GT(flat.hi, 5e6);
  const ValueRange near_zero = fitValueRange(0, 1e6, false);
  EXPECT_EQ(near_zero.lo, 0);
  const ValueRange nothing = fitValueRange(0, 0, true);
  EXPECT_GT(nothing.hi, nothing.lo);
  const ValueRange bad = fitValueRange(std::numeric_limits<double>::infinity(), 1, false);
  EXPECT_EQ(bad.lo, 0);
  EXPECT_EQ(bad.hi, 1);
}

}  // namespace
}  // namespace sawtooth
