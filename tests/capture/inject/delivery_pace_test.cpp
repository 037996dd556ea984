#include "capture/inject/delivery_pace.h"

#include <gtest/gtest.h>

namespace sawtooth::tracker {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr size_t kCapacity = 1 << 18;

TEST(DeliveryPace, WithoutStacksTheWaitIsTheIntervalAskedFor) {
  const DeliveryPace pace;
  EXPECT_EQ(nextDeliveryWait(pace, 0, 1000, 50'000'000, kCapacity), nanoseconds(milliseconds(50)));
}

TEST(DeliveryPace, SymbolizingStretchesTheWaitUntilItsGilTimeIsWithinTheBudget) {
  const DeliveryPace pace;  // 0.1 %
  // 0.3 ms of GIL per batch: a batch every 300 ms keeps it at 0.1 %.
  EXPECT_EQ(nextDeliveryWait(pace, 300'000, 1000, 50'000'000, kCapacity), nanoseconds(milliseconds(300)));
}

TEST(DeliveryPace, TheWaitNeverPassesTheCeiling) {
  const DeliveryPace pace;
  EXPECT_EQ(nextDeliveryWait(pace, 50'000'000, 10, 50'000'000, kCapacity), nanoseconds(milliseconds(1000)));
  DeliveryPace slow;
  slow.floor = milliseconds(2000);  // an interval above the ceiling is honoured
  EXPECT_EQ(nextDeliveryWait(slow, 0, 10, 50'000'000, kCapacity), nanoseconds(milliseconds(2000)));
}

TEST(DeliveryPace, TheQueueNeverFillsPastHalfAtTheLastRate) {
  const DeliveryPace pace;
  // 100,000 events in 100 ms: the half of 262,144 slots fills in 131 ms.
  const auto wait = nextDeliveryWait(pace, 900'000, 100'000, 100'000'000, kCapacity);
  EXPECT_EQ(wait, nanoseconds(131'072'000));
  // Even faster than the floor: the floor gives way, down to 1 ms.
  EXPECT_EQ(nextDeliveryWait(pace, 0, kCapacity, 1'000, kCapacity), nanoseconds(milliseconds(1)));
}

}  // namespace
}  // namespace sawtooth::tracker
