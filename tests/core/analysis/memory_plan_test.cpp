// The plan of a step's memory, defined once: 16P of model state for Adam, 4P + 4P + 8P/N sharded.

#include <gtest/gtest.h>

#include "core/analysis/measurement_names.h"
#include "core/analysis/memory_plan.h"

namespace sawtooth {
namespace {

TEST(MemoryPlan, AdamIsSixteenP) {
  PlanInputs in;
  in.parameters = 1000;
  in.optimizer_parameters = 1000;
  in.state_per_parameter = 2;
  in.activation_elements = 300;
  in.input_elements = 50;
  const MemoryPlan p = planMemory(in);
  EXPECT_EQ(p.parameter_bytes, 4000);
  EXPECT_EQ(p.gradient_bytes, 4000);
  EXPECT_EQ(p.optimizer_state_bytes, 8000);
  EXPECT_EQ(p.modelStateBytes(), 16000);
  EXPECT_EQ(p.modelStateInP(), 16);
  EXPECT_EQ(p.totalBytes(), 16000 + 1200 + 200);
  EXPECT_EQ(replicatedModelStateBytes(p.parameter_bytes), 16000);
  EXPECT_EQ(shardedModelStateBytes(p.parameter_bytes, 4), 4000 + 4000 + 8000 / 4);
}

TEST(MemoryPlan, MeasurementsRoundTripThroughARun) {
  PlanInputs in;
  in.parameters = 1000;
  in.stored_parameters = 1024;  // a flat buffer padded for N ranks
  in.optimizer_parameters = 512;
  in.activation_elements = 10;
  in.input_elements = 10;
  const MemoryPlan p = planMemory(in);
  EXPECT_EQ(p.parameter_bytes, 4096);
  EXPECT_EQ(p.optimizer_state_bytes, 4096);
  sawtooth::Run run;
  run.measurements = p.measurements(20000);
  const Measurement* error = run.measurement(measure::kPlanError);
  ASSERT_TRUE(error);
  EXPECT_DOUBLE_EQ(error->value, 20000 / p.totalBytes() - 1);
  EXPECT_EQ(run.measurement(measure::kOptimizerParameters)->value, 512);
  EXPECT_EQ(run.measurement(measure::kPlanModelStateBytes)->value, p.modelStateBytes());
  EXPECT_EQ(std::string(run.measurement(measure::kPlanTotalBytes)->unit), measure::kBytes);
  const auto back = MemoryPlan::fromRun(run);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->parameters, 1000);
  EXPECT_EQ(back->optimizer_parameters, 512);
  EXPECT_EQ(back->totalBytes(), p.totalBytes());
  EXPECT_FALSE(MemoryPlan::fromRun(sawtooth::Run{}));
  // No measured peak, no error.
  sawtooth::Run unmeasured;
  unmeasured.measurements = p.measurements(0);
  EXPECT_FALSE(unmeasured.measurement(measure::kPlanError));
}

TEST(MeasurementNames, TimingNames) {
  EXPECT_EQ(measure::timing(measure::kStepTime, measure::kMedianMsSuffix), "step_time_median_ms");
  EXPECT_TRUE(measure::isSample("fwd_bwd_sample_ms"));
  EXPECT_FALSE(measure::isSample("_sample_ms"));
  EXPECT_FALSE(measure::isSample("step_time_median_ms"));
}

}  // namespace
}  // namespace sawtooth
