// Numbers derived from the recordings committed under resources/samples (H200), recomputed here
// from their raw measurements, so the charts' labels can never drift from the data.

#include <gtest/gtest.h>

#include "core/analysis/category_series.h"
#include "core/analysis/experiment_results.h"
#include "core/analysis/trace_report.h"
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

// A precision run with three timed steps per mode (median, min, max and each sample, as the
// workloads write them).
Trace precisionRun(std::vector<std::pair<std::string, std::vector<double>>> modes, const std::string& device_kind = "") {
  Trace t;
  t.meta["workload"] = "precision";
  if (!device_kind.empty()) t.meta["device_kind"] = device_kind;
  for (auto& [mode, samples] : modes) {
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    Run r{mode, "precision", {{"mode", mode}}, {{"step_time_median_ms", sorted[sorted.size() / 2], "ms"},
                                               {"step_time_min_ms", sorted.front(), "ms"},
                                               {"step_time_max_ms", sorted.back(), "ms"},
                                               {"achieved_tflops", 0.012, "TFLOP/s"}}};
    for (double ms : samples) r.measurements.push_back({"step_time_sample_ms", ms, "ms"});
    t.runs.push_back(std::move(r));
  }
  return t;
}

// A CPU's precision run: bf16 emulated in software is far slower than fp32.
Trace cpuPrecision() { return precisionRun({{"fp32", {9.8, 10, 10.3}}, {"tf32", {9.9, 10, 10.2}}, {"bf16", {98, 100, 103}}}); }

TEST(ExperimentResults, ASlowModeReadsSlower) {
  const Trace t = cpuPrecision();
  const auto rows = precisionResults(t);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(*rows[2].speedup_vs_tf32, 0.1);
  const auto rungs = ladder({&t});
  EXPECT_NE(rungs[1].finding.find("bf16 is 10× slower than TF32 here"), std::string::npos) << rungs[1].finding;
  EXPECT_EQ(rungs[1].finding.find("0.1×"), std::string::npos) << rungs[1].finding;
}

TEST(TimingChange, OverlappingRangesAreNoise) {
  Timing a{"step_time", 10, 6, 15, 3, {6, 10, 15}};
  Timing b{"step_time", 8, 5, 14, 3, {5, 8, 14}};
  const TimingChange c = compareTimings(a, b);
  EXPECT_EQ(c.verdict, TimingChange::Verdict::WithinNoise);
  EXPECT_DOUBLE_EQ(c.speedup, 10.0 / 8.0);
  EXPECT_EQ(speedupVerdictText(c), "within noise (±56 %)");  // the wider: b's (14 − 5) / 2 / 8
  EXPECT_EQ(timeChangeText(c), "time within noise (±56 %)");
  // Apart: a finding, worded as one.
  const TimingChange apart = compareTimings(a, Timing{"step_time", 30, 29, 31, 3, {29, 30, 31}});
  EXPECT_EQ(apart.verdict, TimingChange::Verdict::Slower);
  EXPECT_EQ(timeChangeText(apart), "+200 % time");
  // Fewer than three samples: not judged, never a speed-up.
  const TimingChange one = compareTimings(a, Timing{"step_time", 1, 1, 1, 1, {1}});
  EXPECT_EQ(one.verdict, TimingChange::Verdict::NotJudged);
  EXPECT_EQ(speedupVerdictText(one).find("faster"), std::string::npos);
}

TEST(TimingChange, OneSlowStepDoesNotHideAFinding) {
  // Ten samples each, one outlier in the reference: the interquartile ranges do not overlap.
  Timing a{"step_time", 10, 9.8, 40, 10, {9.8, 9.9, 10, 10, 10, 10.1, 10.1, 10.2, 10.2, 40}};
  Timing b{"step_time", 12, 11.8, 12.3, 10, {11.8, 11.9, 12, 12, 12, 12, 12.1, 12.1, 12.2, 12.3}};
  EXPECT_EQ(compareTimings(a, b).verdict, TimingChange::Verdict::Slower);
}

TEST(ExperimentResults, OnACpuTf32IsFp32) {
  const Trace t = precisionRun({{"fp32", {9.8, 10, 10.3}}, {"tf32", {18, 19, 21}}, {"bf16", {30, 31, 33}}}, "cpu");
  const auto rows = precisionResults(t);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_NE(rows[1].caveat.find("on a CPU this mode runs the fp32 arithmetic"), std::string::npos);
  EXPECT_FALSE(rows[2].vs_tf32.has_value());  // against TF32 would be against fp32 again
  // The table shows no "1.9× slower" for TF32, and says why.
  const Table table = precisionTable(rows);
  EXPECT_FALSE(table.at(1, 5).number());
  EXPECT_NE(table.at(1, 9).text()->find("NVIDIA GPU format"), std::string::npos);
  // The ladder compares bf16 with fp32 on a CPU.
  const auto rungs = ladder({&t});
  EXPECT_NE(rungs[1].finding.find("slower than fp32"), std::string::npos) << rungs[1].finding;
  EXPECT_EQ(rungs[1].finding.find("TF32"), std::string::npos) << rungs[1].finding;
}

TEST(ExperimentResults, NoisyTimesAreNotFindings) {
  // Checkpointing on a loaded CPU: three samples each, spread wider than the difference.
  Trace t;
  t.meta["workload"] = "checkpointing";
  for (auto [name, samples] : {std::pair{"store_all", std::vector<double>{4.1, 6.0, 9.5}},
                               std::pair{"every_block", std::vector<double>{3.2, 5.1, 8.8}}}) {
    sawtooth::Run r{name, "checkpointing", {}, {{"peak_allocated_bytes", name == std::string("store_all") ? 2e6 : 1.6e6, "bytes"},
                                      {"fwd_bwd_median_ms", samples[1], "ms"},
                                      {"fwd_bwd_min_ms", samples[0], "ms"},
                                      {"fwd_bwd_max_ms", samples[2], "ms"}}};
    for (double ms : samples) r.measurements.push_back({"fwd_bwd_sample_ms", ms, "ms"});
    t.runs.push_back(std::move(r));
  }
  const auto groups = peakComparison(t);
  ASSERT_EQ(groups.size(), 2u);
  ASSERT_TRUE(groups[1].time_vs_baseline);
  EXPECT_EQ(groups[1].time_vs_baseline->verdict, TimingChange::Verdict::WithinNoise);
  const auto rungs = ladder({&t});
  EXPECT_NE(rungs[2].finding.find("time within noise"), std::string::npos) << rungs[2].finding;
  EXPECT_EQ(rungs[2].finding.find("−15 % time"), std::string::npos) << rungs[2].finding;
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
