// The one check of a workload's parameters, device and ranks that the recorder and the app share.

#include <gtest/gtest.h>

#include "core/recording/workload_spec.h"

namespace sawtooth::recording {
namespace {

ParameterSpec intParam() { return {"width", "int", "features", "2048", "256", {}, 1, 65536}; }
ParameterSpec floatParam() { return {"lr", "float", "learning rate", "0.001", "0.001", {}, 0, 10}; }
ParameterSpec choiceParam() { return {"optimizer", "choice", "", "adam", "sgd", {"adam", "adamw", "sgd"}}; }

WorkloadSpec anatomy() { return {"anatomy", "Anatomy", "", {intParam(), floatParam(), choiceParam()}, false}; }

std::string problem(const ParameterSpec& p, std::string_view value) {
  const Status st = checkParameter(p, value);
  return st ? "" : st.error().message;
}

TEST(CheckParameter, WholeNumbersOnlyForInts) {
  EXPECT_EQ(problem(intParam(), "512"), "");
  for (const char* bad : {"abc", "12abc", " 12", "12 ", "1.5", "", "0x10", "+-1"})
    EXPECT_EQ(problem(intParam(), bad), "not a whole number") << bad;
  EXPECT_EQ(problem(intParam(), "0"), "must be between 1 and 65536");
  EXPECT_EQ(problem(intParam(), "65537"), "must be between 1 and 65536");
  EXPECT_EQ(problem(intParam(), "99999999999999999999"), "not a whole number");  // out of int64's range
}

TEST(CheckParameter, FiniteNumbersForFloats) {
  EXPECT_EQ(problem(floatParam(), "1e-3"), "");
  EXPECT_EQ(problem(floatParam(), "10"), "");
  for (const char* bad : {"nan", "inf", "-inf", "1,5", " 0.1", "0.1x", ""}) EXPECT_EQ(problem(floatParam(), bad), "not a number") << bad;
  EXPECT_EQ(problem(floatParam(), "11"), "must be between 0 and 10");
  ParameterSpec open = floatParam();
  open.min = -std::numeric_limits<double>::infinity();
  open.max = 1;
  EXPECT_EQ(problem(open, "2"), "must be between −∞ and 1");
}

TEST(CheckParameter, ChoicesAreExact) {
  EXPECT_EQ(problem(choiceParam(), "adamw"), "");
  EXPECT_EQ(problem(choiceParam(), "Adam"), "choose one of adam, adamw, sgd");
  ParameterSpec odd = intParam();
  odd.type = "colour";
  EXPECT_EQ(problem(odd, "1"), "has an unknown type 'colour'");
}

TEST(ResolveParameters, DefaultsForTheDeviceThenOverrides) {
  auto gpu = resolveParameters(anatomy(), true, {});
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->integer("width"), 2048);
  EXPECT_EQ(gpu->text("optimizer"), "adam");
  auto cpu = resolveParameters(anatomy(), false, {{"width", "64"}, {"lr", "0.5"}});
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->integer("width"), 64);
  EXPECT_DOUBLE_EQ(cpu->real("lr"), 0.5);
  EXPECT_EQ(cpu->text("optimizer"), "sgd");
  EXPECT_EQ(cpu->list().size(), 3u);
}

TEST(ResolveParameters, SaysWhatIsWrong) {
  auto bad = resolveParameters(anatomy(), true, {{"width", "abc"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "width=abc: not a whole number");
  auto unknown = resolveParameters(anatomy(), true, {{"depth", "3"}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "workload 'anatomy' has no parameter 'depth' (it has: width, lr, optimizer)");
}

TEST(ResolveDevice, CudaOnlyWithAGpu) {
  EXPECT_TRUE(*resolveDevice("cuda", true));
  EXPECT_FALSE(*resolveDevice("cpu", true));
  EXPECT_TRUE(*resolveDevice("auto", true));
  EXPECT_FALSE(*resolveDevice("auto", false));
  auto none = resolveDevice("cuda", false);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "--device cuda: no CUDA device is available on this machine");
  EXPECT_FALSE(resolveDevice("tpu", true));
}

TEST(CheckRanks, OneProcessUnlessDistributedAndOneGpuPerRank) {
  WorkloadSpec dp = anatomy();
  dp.name = "data-parallel";
  dp.distributed = true;
  EXPECT_TRUE(checkRanks(anatomy(), 1, true, 1));
  EXPECT_FALSE(checkRanks(anatomy(), 2, false, 0));
  EXPECT_TRUE(checkRanks(dp, 8, false, 0));
  EXPECT_TRUE(checkRanks(dp, kMaxRanks, false, 0));
  EXPECT_FALSE(checkRanks(dp, kMaxRanks + 1, false, 0));
  EXPECT_FALSE(checkRanks(dp, 0, false, 0));
  EXPECT_TRUE(checkRanks(dp, 2, true, 2));
  auto too_many = checkRanks(dp, 3, true, 2);
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.error().message.find("this machine has 2 CUDA device(s)"), std::string::npos);
  EXPECT_EQ(maxRanks(true, 2), 2);
  EXPECT_EQ(maxRanks(false, 2), kMaxRanks);
}

}  // namespace
}  // namespace sawtooth::recording
