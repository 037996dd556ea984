// The allocator tracker's mapping from PyTorch's approximate clock to monotonic nanoseconds.

#include <gtest/gtest.h>

#include "capture/inject/approximate_clock.h"

namespace sawtooth::tracker {
namespace {

TEST(ApproximateClock, MapsStampsOntoTheLineThroughTheLastTwoAnchors) {
  ApproximateClock clock;
  EXPECT_FALSE(clock.ready());
  clock.anchor(1'000, 5'000'000);  // 3 ticks a nanosecond
  EXPECT_FALSE(clock.ready());
  clock.anchor(3'001'000, 6'000'000);
  ASSERT_TRUE(clock.ready());
  EXPECT_EQ(clock.toNs(3'001'000), 6'000'000);
  EXPECT_EQ(clock.toNs(3'301'000), 6'100'000) << "past the last anchor, on the same slope";
  clock.anchor(9'001'000, 7'000'000);  // now 6 ticks a nanosecond
  EXPECT_EQ(clock.toNs(9'601'000), 7'100'000);
}

TEST(ApproximateClock, NeverGoesBack) {
  ApproximateClock clock;
  clock.anchor(0, 1'000);
  clock.anchor(1'000, 2'000);
  EXPECT_EQ(clock.toNs(1'500), 2'500);
  EXPECT_EQ(clock.toNs(1'200), 2'500) << "an earlier stamp after a later one keeps the later time";
  clock.anchor(2'000, 2'600);  // a slower slope: the previous line ran ahead of this one
  EXPECT_EQ(clock.toNs(1'900), 2'540);
  EXPECT_GE(clock.toNs(0), 2'540);
}

TEST(ApproximateClock, IgnoresAnchorsWithoutTimePassing) {
  ApproximateClock clock;
  clock.anchor(100, 1'000);
  clock.anchor(200, 1'100);
  clock.anchor(200, 1'300);  // no tick passed: the slope would be infinite
  clock.anchor(150, 1'400);  // the counter went back (another core's, a migrated VM)
  EXPECT_EQ(clock.toNs(300), 1'200);
}

}  // namespace
}  // namespace sawtooth::tracker
