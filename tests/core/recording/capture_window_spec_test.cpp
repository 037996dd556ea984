// The capture-window options as the recorder and the app's form both check them.

#include <gtest/gtest.h>

#include "core/recording/capture_window_spec.h"

namespace sawtooth::recording {
namespace {

TEST(StepRange, BothEndsOrEitherOpen) {
  auto r = parseStepRange("10:20");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 10);
  EXPECT_EQ(r->end, 20);
  r = parseStepRange("5:");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 5);
  EXPECT_EQ(r->end, std::numeric_limits<int64_t>::max());
  r = parseStepRange(":3");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 0);
  EXPECT_EQ(r->end, 3);
}

TEST(StepRange, RefusalsSayWhatWouldBeAccepted) {
  for (const char* bad : {"", "7", "a:b", "-1:4", "4:4", "9:2", "1:2:3", " 1:2", "1:99999999999999999999"}) {
    auto r = parseStepRange(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("--steps"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("expected A:B"), std::string::npos) << r.error().message;
  }
}

TEST(WindowEvents, OneOrMore) {
  EXPECT_TRUE(checkWindowEvents(1));
  EXPECT_TRUE(checkWindowEvents(1'000'000'000));
  EXPECT_FALSE(checkWindowEvents(0));
  EXPECT_FALSE(checkWindowEvents(-5));
}

TEST(SampleInterval, ZeroToAnHour) {
  EXPECT_TRUE(checkSampleInterval(0));
  EXPECT_TRUE(checkSampleInterval(kDefaultSampleIntervalMs));
  EXPECT_TRUE(checkSampleInterval(kMaxSampleIntervalMs));
  EXPECT_FALSE(checkSampleInterval(-1));
  auto st = checkSampleInterval(kMaxSampleIntervalMs + 1);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("--sample-interval"), std::string::npos);
}

}  // namespace
}  // namespace sawtooth::recording
