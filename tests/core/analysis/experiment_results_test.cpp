// Numbers derived from the recordings committed under resources/samples (H200), recomputed here
// from their raw measurements, so the charts' labels can never drift from the data.

#include <gtest/gtest.h>

#include "core/analysis/category_series.h"
#include "core/analysis/experiment_results.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

Trace sample(const std::string& name) {
  auto t = loadTrace(std::string(SAWTOOTH_SAMPLES) + "/" + name);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace{};
}

double measured(const Trace& t, const std::string& run, const std::string& name) {
  for (const auto& r : t.runs)
    if (r.name == run) return r.measurement(name)->value;
  return -1;
}

TEST(ExperimentResults, PrecisionSpeedupsComeFromTheMedians) {
  const Trace t = sample("precision.sawtooth");
  const auto rows = precisionResults(t);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].mode, "fp32");
  EXPECT_EQ(rows[2].mode, "bf16");
  const double tf32 = measured(t, "tf32", "step_time_median_ms"), bf16 = measured(t, "bf16", "step_time_median_ms");
  EXPECT_DOUBLE_EQ(*rows[2].speedup_vs_tf32, tf32 / bf16);
  EXPECT_DOUBLE_EQ(*rows[0].speedup_vs_fp32, 1.0);
  EXPECT_GT(*rows[2].speedup_vs_fp32, 5.0);  // TF32 off is the unfair baseline
  EXPECT_LE(rows[2].time.min_ms, rows[2].time.median_ms);
  EXPECT_LE(rows[2].time.median_ms, rows[2].time.max_ms);
  EXPECT_EQ(rows[2].time.samples, 50u);
  EXPECT_NE(rows[2].settings.find("autocast=BFloat16"), std::string::npos);
  EXPECT_NE(rows[0].settings.find("float32_matmul_precision=highest"), std::string::npos);
}

TEST(ExperimentResults, CheckpointingChangesAreRelativeToStoreAll) {
  const Trace t = sample("checkpointing.sawtooth");
  const auto groups = peakComparison(t);
  // 4 runs in recordings with the reentrant form only, 7 with both forms; every_block is last.
  ASSERT_TRUE(groups.size() == 4u || groups.size() == 7u) << groups.size();
  EXPECT_EQ(groups[0].run, "store_all");
  EXPECT_EQ(groups[0].allocated_change, 0);
  const PeakGroup& last = groups.back();
  EXPECT_EQ(last.run, "every_block");
  EXPECT_DOUBLE_EQ(last.allocated_change, measured(t, "every_block", "peak_allocated_bytes") /
                                              measured(t, "store_all", "peak_allocated_bytes") - 1);
  EXPECT_LT(last.allocated_change, -0.4);
  ASSERT_TRUE(last.time_change.has_value());
  EXPECT_GT(*last.time_change, 0.1);
  EXPECT_TRUE(last.peak_reserved.has_value());
}

TEST(ExperimentResults, AnatomyPlanBesideTheCount) {
  const Trace t = sample("anatomy.sawtooth");
  const auto rows = anatomyPlan(t, 0);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].what, "parameters");
  EXPECT_EQ(rows[0].plan_bytes, 100663296);
  EXPECT_EQ(rows[0].measured_bytes, 100663296);
  EXPECT_EQ(rows[2].plan_bytes, 201326592);
  EXPECT_EQ(rows[2].measured_bytes, 201326592);
  EXPECT_EQ(rows.back().what, "total (peak)");
  EXPECT_EQ(rows.back().measured_bytes, 572522496);
  EXPECT_NEAR(rows.back().error(), 572522496.0 / rows.back().plan_bytes - 1, 1e-12);
}

TEST(ExperimentResults, LadderUsesOnlyWhatWasMeasured) {
  const Trace p = sample("precision.sawtooth"), c = sample("checkpointing.sawtooth"), a = sample("accumulation.sawtooth");
  auto rungs = ladder({});
  ASSERT_EQ(rungs.size(), 5u);
  for (const auto& r : rungs) EXPECT_FALSE(r.measured) << r.remedy;
  rungs = ladder({&p, &c, &a});
  EXPECT_FALSE(rungs[0].measured);  // compile
  EXPECT_TRUE(rungs[1].measured);
  EXPECT_NE(rungs[1].finding.find("faster than TF32"), std::string::npos) << rungs[1].finding;
  EXPECT_TRUE(rungs[2].measured);
  EXPECT_EQ(rungs[2].run, "every_block");
  EXPECT_TRUE(rungs[3].measured);
  EXPECT_NE(rungs[3].finding.find("same gradients"), std::string::npos) << rungs[3].finding;
  EXPECT_FALSE(rungs[4].measured);
}

// A CPU's precision run: bf16 emulated in software is far slower than fp32.
Trace cpuPrecision() {
  Trace t;
  t.meta["workload"] = "precision";
  for (auto [mode, ms] : {std::pair{"fp32", 10.0}, {"tf32", 10.0}, {"bf16", 100.0}}) {
    Run r{mode, "precision", {{"mode", mode}}, {{"step_time_median_ms", ms, "ms"}, {"achieved_tflops", 0.012, "TFLOP/s"}}};
    t.runs.push_back(std::move(r));
  }
  return t;
}

TEST(ExperimentResults, ASlowModeReadsSlower) {
  const Trace t = cpuPrecision();
  const auto rows = precisionResults(t);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(*rows[2].speedup_vs_tf32, 0.1);
  const auto rungs = ladder({&t});
  EXPECT_NE(rungs[1].finding.find("bf16 is 10× slower than TF32 here"), std::string::npos) << rungs[1].finding;
  EXPECT_EQ(rungs[1].finding.find("0.1×"), std::string::npos) << rungs[1].finding;
}

TEST(LiveBlocksAt, TheOomSnapshotsLiveBlocksAtTheFailure) {
  auto t = loadTrace(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"));
  ASSERT_TRUE(t.ok());
  size_t oom = 0;
  for (size_t i = 0; i < t->events.size(); ++i)
    if (t->events.action()[i] == Action::Oom) oom = i;
  const auto blocks = liveBlocksAt(*t, 0, oom);
  ASSERT_EQ(blocks.size(), 8u);
  int64_t total = 0;
  for (const auto& b : blocks) total += b.size;
  EXPECT_EQ(total, 536870912);
  EXPECT_GE(blocks.front().size, blocks.back().size);
  EXPECT_NE(blocks.front().stack, kNoStack);
}

TEST(CategoryTimeline, SumsToTheAllocatedSeries) {
  const Trace t = sample("anatomy.sawtooth");
  const auto timeline = buildCategoryTimeline(t, 0);
  ASSERT_FALSE(timeline.empty());
  int64_t top = 0;
  for (size_t i = 0; i < timeline.live[0].size(); ++i) {
    int64_t sum = 0;
    for (const auto& c : timeline.live) sum += c[i];
    top = std::max(top, sum);
  }
  EXPECT_EQ(top, 572522496);
}

}  // namespace
}  // namespace sawtooth
