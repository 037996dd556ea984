// What a trace's tab shows, computed in core: the header, the plan line, the out-of-memory
// report, the runs and precision tables, and the ranks.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/analysis/measurement_names.h"
#include "core/analysis/memory_plan.h"
#include "core/analysis/trace_report.h"
#include "core/io/trace_loader.h"
#include "core/model/trace_merge.h"
#include "tests/core/analysis_test_data.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

// One data-parallel rank on the CPU that peaks at `peak` bytes, with its plan.
RankTrace cpuRank(int rank, int64_t peak) {
  RankTrace r;
  r.rank = rank;
  Trace& t = r.trace;
  t.meta["t0_clock_ns"] = "1000";
  t.meta["workload"] = "data-parallel";
  PlanInputs in;
  in.parameters = 100000;
  in.optimizer_parameters = 50000;
  Run run{"sharded", "data-parallel", {{"variant", "sharded"}, {"world_size", "2"}}, planMemory(in).measurements(0)};
  t.runs.push_back(std::move(run));
  for (int64_t i = 0; i < 3; ++i) {
    Event e;
    e.t_ns = 10 * i;
    e.device = kCpuDevice;
    e.action = i < 2 ? Action::Alloc : Action::FreeCompleted;
    e.size = i < 2 ? peak / 2 : peak / 2;
    e.run = 0;
    t.events.push(e);
  }
  return r;
}

TEST(TraceReport, RanksOnOneDeviceAreNotSummed) {
  // Two CPU ranks, 5.3 MB each: the header said "cpu: peak 10.6 MB".
  const std::vector<RankTrace> ranks = {cpuRank(0, 5'300'000), cpuRank(1, 5'300'000)};
  auto merged = mergeRankTraces(ranks);
  ASSERT_TRUE(merged);
  const auto report = buildTraceReport(test::analyse(std::move(*merged)));
  ASSERT_TRUE(report->ranks);
  ASSERT_EQ(report->headline.items.size(), 2u);
  EXPECT_EQ(report->headline.items[0].who, "rank 0 (cpu)");
  EXPECT_EQ(report->headline.items[0].peak_allocated, 5'300'000);
  EXPECT_EQ(report->headline.items[1].peak_allocated, 5'300'000);
  const RankComparison& rc = *report->ranks;
  EXPECT_EQ(rc.world_size, 2);
  EXPECT_EQ(rc.variant, "sharded");
  EXPECT_DOUBLE_EQ(rc.imbalance, 1.0);
  EXPECT_EQ(rc.parameter_bytes, 400000);
  EXPECT_EQ(rc.replicated_bytes, 16 * 100000);
  EXPECT_EQ(rc.sharded_bytes, 8 * 100000 + 8 * 100000 / 2);
  EXPECT_EQ(rc.ranks[1].planned_optimizer_state, 400000);
  EXPECT_DOUBLE_EQ(rc.ranks[1].relative_to_lowest, 1.0);
  auto lanes = rankLanes(report->analysis->trace());
  ASSERT_TRUE(lanes);
  ASSERT_EQ(lanes->size(), 2u);
  EXPECT_EQ((*lanes)[1].rank, 1);
  EXPECT_EQ((*lanes)[1].analysis->device(kCpuDevice)->line(SeriesKind::Allocated)->peak.value, 5'300'000);
}

TEST(TraceReport, AnatomySnapshotHeadline) {
  const auto report = buildTraceReport(test::loadAnalysis(test::dataPath("anatomy_adam_snapshot.pickle")));
  ASSERT_EQ(report->headline.items.size(), 1u);
  const HeadlineItem& h = report->headline.items[0];
  EXPECT_EQ(h.who, "cuda:0");
  EXPECT_EQ(h.peak_allocated, 572522496);
  EXPECT_EQ(h.peak_event_index, 105);
  EXPECT_EQ(h.peak_reserved, 576716800);
  EXPECT_FALSE(h.out_of_memory);
  EXPECT_EQ(report->headline.events, 352u);
  EXPECT_FALSE(report->ranks);
  EXPECT_FALSE(report->oom);
  EXPECT_TRUE(report->plan_lines.empty());  // a snapshot has no plan
}

TEST(TraceReport, ThePlanLineOfARecording) {
  const auto report = buildTraceReport(test::loadAnalysis(test::samplePath("anatomy.sawtooth")));
  ASSERT_EQ(report->plan_lines.size(), 1u);
  EXPECT_NE(report->plan_lines[0].label.find("= 16P = "), std::string::npos) << report->plan_lines[0].label;
  ASSERT_FALSE(report->plan_rows.empty());
  EXPECT_EQ(report->plan_rows[0].what, "parameters");
  EXPECT_EQ(report->plan_device, 0);
}

TEST(TraceReport, OutOfMemoryPostMortem) {
  const auto report = buildTraceReport(test::loadAnalysis(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz")));
  ASSERT_TRUE(report->oom);
  const OomReport& o = *report->oom;
  EXPECT_EQ(o.requested, 67108864);
  EXPECT_EQ(o.blocks.rowCount(), 8u);
  EXPECT_EQ(o.blocks.columns[0].unit, Unit::Bytes);
  EXPECT_FALSE(o.blocks.at(0, 5).text()->empty());  // frames
  // The user's lines first, PyTorch's after them (they came first: module.py's _apply and to).
  for (size_t r = 0; r < o.blocks.rowCount(); ++r) {
    const std::string& frames = *o.blocks.at(r, 5).text();
    ASSERT_NE(frames.find("(fixtures.py:"), std::string::npos) << frames;
    EXPECT_LT(frames.find("(fixtures.py:"), frames.find(" ← ")) << frames;
  }
  EXPECT_GE(o.allocated, o.itemised);
  EXPECT_TRUE(report->headline.items[0].out_of_memory);
}

TEST(TraceReport, HostileMetaIsDataNotACrash) {
  Trace t = *loadTrace(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"));
  t.meta["oom.device_free_bytes"] = "lots";
  t.meta["oom.device_total_bytes"] = "99999999999999999999999";
  const auto report = buildTraceReport(test::analyse(std::move(t)));
  ASSERT_TRUE(report->oom);
  EXPECT_FALSE(report->oom->reported_free);
  EXPECT_FALSE(report->oom->reported_total);
}

TEST(TraceReport, RunsTableWritesRawNumbersWithUnits) {
  const auto report = buildTraceReport(test::loadAnalysis(test::samplePath("precision.sawtooth")));
  const Table& runs = report->runs;
  ASSERT_EQ(runs.rowCount(), 4u);
  bool found_peak = false, found_tflops = false;
  for (size_t c = 0; c < runs.columnCount(); ++c) {
    if (csvHeader(runs.columns[c]) == "peak allocated bytes (bytes)") found_peak = true;
    if (runs.columns[c].name == "achieved tflops") {
      found_tflops = true;
      EXPECT_EQ(runs.columns[c].unit, Unit::FlopPerSecond);
      EXPECT_GT(*runs.at(0, c).number(), 1e12);  // FLOP/s, not TFLOP/s
    }
    EXPECT_FALSE(runs.columns[c].name.ends_with("sample ms"));  // samples are summarised, not listed
  }
  EXPECT_TRUE(found_peak);
  EXPECT_TRUE(found_tflops);
  const Table& precision = report->precision_table;
  ASSERT_EQ(precision.rowCount(), 4u);
  EXPECT_EQ(precision.columns[5].unit, Unit::Speedup);
  EXPECT_NE(precision.at(2, 10).text()->find("autocast=BFloat16"), std::string::npos);
  // On the H200 bf16 is faster than fp32 by far more than its spread: a speed-up, no note.
  EXPECT_GT(*precision.at(2, 5).number(), 5.0);
  EXPECT_TRUE(precision.at(2, 9).text()->empty());
}


TEST(TraceReport, IncompleteRecordingsAndWarningsReachTheHeadline) {
  Trace t = *loadTrace(test::dataPath("synthetic_window_streams.pickle"));
  ASSERT_FALSE(t.anomalies.empty());
  t.meta["complete"] = "false";
  t.meta["incomplete_reason"] = "killed";
  t.meta["incomplete_detail"] = "the recording process was killed by signal 9 (Killed)";
  t.meta["warnings"] = "skipped 2 event(s) of unknown action 'teleport'; segment 3 has no blocks; ";
  const size_t anomalies = t.anomalies.size();
  const Anomaly first = t.anomalies.front();
  const auto report = buildTraceReport(test::analyse(std::move(t)));
  const Headline& h = report->headline;
  EXPECT_EQ(h.incomplete.rfind("incomplete recording: killed", 0), 0u) << h.incomplete;
  ASSERT_EQ(h.warnings.size(), 2 + anomalies);
  EXPECT_EQ(h.warnings[0], "skipped 2 event(s) of unknown action 'teleport'");
  EXPECT_EQ(h.warnings[1], "segment 3 has no blocks");
  EXPECT_NE(h.warnings[2].find(std::string(describe(first.kind))), std::string::npos) << h.warnings[2];
  EXPECT_NE(h.warnings[2].find(fmt::format("first at event {}", first.first_events.front())), std::string::npos);
}

TEST(TraceReport, ACompleteTraceHasNoNotices) {
  const auto report = buildTraceReport(test::loadAnalysis(test::dataPath("anatomy_adam_snapshot.pickle")));
  EXPECT_TRUE(report->headline.incomplete.empty());
  EXPECT_TRUE(report->headline.warnings.empty());
}

}  // namespace
}  // namespace sawtooth
