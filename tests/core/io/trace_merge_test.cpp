#include <gtest/gtest.h>


#include "core/analysis/run_peaks.h"
#include "core/analysis/trace_summary.h"
#include "core/io/native_format.h"
#include "core/io/trace_merge.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

Event allocatorEvent(int64_t t, Action action, int64_t size, Category category, uint16_t run, uint32_t phase = kNoPhase,
                     uint32_t stack = kNoStack, DeviceId device = kCpuDevice) {
  Event e;
  e.t_ns = t;
  e.device = device;
  e.source = Source::Allocator;
  e.action = action;
  e.addr = 0x1000;  // two processes may well use the same addresses
  e.size = size;
  e.category = category;
  e.run = run;
  e.phase = phase;
  e.stack = stack;
  return e;
}

// A rank's trace as the recorder writes it: one run, two phases, a stack, a kernel, its own
// clock origin; `param_bytes` of parameters and twice that of optimizer state.
RankTrace rankTrace(int rank, int64_t t0, int64_t param_bytes, const std::string& frame_name) {
  RankTrace r;
  r.rank = rank;
  Trace& t = r.trace;
  t.format = "sawtooth";
  t.meta["t0_clock_ns"] = std::to_string(t0);
  t.meta["workload"] = "data-parallel";
  t.meta["device_name"] = "rank-" + std::to_string(rank) + "-device";
  t.meta["tool"] = "sawtooth-record";
  t.runs.push_back(Run{"plain", "data-parallel", {{"variant", "plain"}, {"world_size", "2"}}, {{"param_checksum", 1.5, ""}}});
  t.phases.push_back(Phase{"forward", PhaseKind::Phase, kAllDevices, 0, 100, 200});
  t.phases.push_back(Phase{"optimizer", PhaseKind::Phase, kAllDevices, 0, 300, 400});
  const uint32_t other = t.stacks.internFrame("main", "main.cpp", 1);
  const uint32_t own = t.stacks.internFrame(frame_name, "rank.cpp", 10 + rank);
  const uint32_t frames[] = {own, other};
  const uint32_t stack = t.stacks.internStack(frames);
  t.kernel_names = {"gemm", "rank_only_" + std::to_string(rank)};
  t.kernels.push_back(KernelInterval{-1, 7, 150, 160, 1, 0});
  DeviceInfo cpu;
  cpu.device = kCpuDevice;
  cpu.name = "CPU";
  t.devices.push_back(cpu);
  // Before the run began (process-group set-up): no run.
  t.events.push(allocatorEvent(10, Action::Alloc, 64, Category::Unknown, kNoRun));
  t.events.push(allocatorEvent(110, Action::Alloc, param_bytes, Category::Parameter, 0, 0, stack));
  t.events.push(allocatorEvent(310, Action::Alloc, 2 * param_bytes, Category::OptimizerState, 0, 1));
  t.events.push(allocatorEvent(390, Action::FreeCompleted, 64, Category::Unknown, 0, 1));
  return r;
}

TEST(TraceMerge, OneRunPerRankAlignedOnTheEarliestClock) {
  std::vector<RankTrace> ranks = {rankTrace(0, 1'000'000, 400, "rank0_fn"), rankTrace(1, 1'000'050, 200, "rank1_fn")};
  auto merged = mergeRankTraces(ranks);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const Trace& t = *merged;

  ASSERT_EQ(t.runs.size(), 2u);
  EXPECT_EQ(t.runs[0].name, "rank 0");
  EXPECT_EQ(t.runs[1].name, "rank 1");
  EXPECT_EQ(t.runs[1].config.front(), (std::pair<std::string, std::string>{"rank", "1"}));
  EXPECT_EQ(t.runs[1].configValue("variant"), "plain");
  EXPECT_EQ(t.runs[1].measurement("param_checksum")->value, 1.5);

  EXPECT_EQ(t.meta.at("t0_clock_ns"), "1000000");
  EXPECT_EQ(t.meta.at("ranks"), "2");
  EXPECT_EQ(t.meta.at("device_name"), "rank-0-device");
  EXPECT_EQ(t.meta.at("rank1.device_name"), "rank-1-device");
  EXPECT_EQ(t.meta.count("rank1.tool"), 0u);  // the same on every rank: kept once

  // Rank 1 started 50 ns later: its times move by 50 ns; events interleave in time.
  ASSERT_EQ(t.events.size(), 8u);
  EXPECT_TRUE(std::is_sorted(t.events.tNs().begin(), t.events.tNs().end()));
  const std::vector<int64_t> times = {10, 60, 110, 160, 310, 360, 390, 440};
  const std::vector<uint16_t> runs = {0, 1, 0, 1, 0, 1, 0, 1};
  for (size_t i = 0; i < t.events.size(); ++i) {
    EXPECT_EQ(t.events.tNs()[i], times[i]) << i;
    EXPECT_EQ(t.events.run()[i], runs[i]) << "every event belongs to its rank's run, even before the run began";
    EXPECT_EQ(t.events.device()[i], kCpuDevice);
  }

  ASSERT_EQ(t.phases.size(), 4u);
  EXPECT_EQ(t.phases[2].name, "forward");
  EXPECT_EQ(t.phases[2].run, 1);
  EXPECT_EQ(t.phases[2].begin_ns, 150);
  EXPECT_EQ(t.phases[3].end_ns, 450);
  // Rank 1's optimizer-state allocation points at rank 1's optimizer phase.
  EXPECT_EQ(t.events.phase()[5], 3u);
  EXPECT_EQ(t.events.phase()[4], 1u);

  // Frames shared by both ranks are stored once; each rank's stack keeps its own frames.
  EXPECT_EQ(t.stacks.frameCount(), 3u);
  ASSERT_EQ(t.stacks.stackCount(), 2u);
  const uint32_t rank1_stack = t.events.stack()[3];
  EXPECT_EQ(t.stacks.frame(t.stacks.stack(rank1_stack)[0]).name, "rank1_fn");
  EXPECT_EQ(t.stacks.frame(t.stacks.stack(t.events.stack()[2])[0]).name, "rank0_fn");

  ASSERT_EQ(t.kernel_names.size(), 3u);  // gemm once, one rank-only name each
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernel_names[t.kernels[1].name], "rank_only_1");
  EXPECT_EQ(t.kernels[1].begin_ns, 200);
  EXPECT_EQ(t.kernels[1].run, 1);

  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].device, kCpuDevice);
}

TEST(TraceMerge, PeaksPerRunSeparateRanksOnOneDevice) {
  std::vector<RankTrace> ranks = {rankTrace(0, 500, 400, "a"), rankTrace(1, 500, 200, "b")};
  auto merged = mergeRankTraces(ranks);
  ASSERT_TRUE(merged.ok());
  const auto peaks = runPeaks(*merged);
  ASSERT_EQ(peaks.size(), 2u);
  const auto param = static_cast<size_t>(Category::Parameter), state = static_cast<size_t>(Category::OptimizerState);
  EXPECT_EQ(peaks[0].run, 0);
  EXPECT_EQ(peaks[0].category_peaks[param], 400);
  EXPECT_EQ(peaks[0].category_peaks[state], 800);
  EXPECT_EQ(peaks[0].peak_allocated, 64 + 400 + 800);
  EXPECT_EQ(peaks[1].run, 1);
  EXPECT_EQ(peaks[1].category_peaks[param], 200);
  EXPECT_EQ(peaks[1].category_peaks[state], 400);
  EXPECT_EQ(peaks[1].peak_allocated, 64 + 200 + 400);
  EXPECT_TRUE(peaks[1].has_categories);
  // The device as a whole sees both ranks' bytes.
  const TraceSummary s = summarize(*merged);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].category_peaks[state], 1200);
  EXPECT_EQ(s.run_peaks.size(), 2u);
}

TEST(TraceMerge, SurvivesTheNativeFile) {
  std::vector<RankTrace> ranks = {rankTrace(0, 7'000, 400, "a"), rankTrace(1, 6'000, 200, "b")};
  auto merged = mergeRankTraces(ranks);
  ASSERT_TRUE(merged.ok());
  const std::string path = test::tempPath("merged-ranks.sawtooth");
  ASSERT_TRUE(writeNative(*merged, path).ok());
  auto back = readNative(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->meta.at("t0_clock_ns"), "6000");  // rank 1 started first
  ASSERT_EQ(back->events.size(), merged->events.size());
  EXPECT_EQ(back->events.tNs().front(), 10);  // rank 1's first event
  EXPECT_EQ(back->events.run().front(), 1);
  EXPECT_EQ(back->runs.size(), 2u);
  EXPECT_EQ(back->phases.size(), 4u);
  EXPECT_EQ(runPeaks(*back).size(), 2u);
}

TEST(TraceMerge, MergesRankFiles) {
  const std::vector<std::string> paths = {test::tempPath("ranks.rank0.sawtooth"), test::tempPath("ranks.rank1.sawtooth")};
  ASSERT_TRUE(writeNative(rankTrace(0, 100, 400, "a").trace, paths[0]).ok());
  ASSERT_TRUE(writeNative(rankTrace(1, 100, 200, "b").trace, paths[1]).ok());
  const std::string out = test::tempPath("ranks.sawtooth");
  Status st = mergeRankFiles(paths, out);
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto merged = readNative(out);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  ASSERT_EQ(merged->runs.size(), 2u);
  EXPECT_EQ(merged->runs[1].configValue("rank"), "1");
  EXPECT_EQ(merged->events.size(), 8u);

  const std::vector<std::string> missing = {paths[0], test::tempPath("no-such-rank.sawtooth")};
  Status bad = mergeRankFiles(missing, out);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("rank 1: ", 0), 0u) << bad.error().message;
}

TEST(TraceMerge, RankWithoutRunsGetsOne) {
  RankTrace r = rankTrace(3, 0, 100, "x");
  r.trace.runs.clear();
  r.trace.kernels.clear();
  for (auto& p : r.trace.phases) p.run = kNoRun;
  std::vector<RankTrace> ranks;
  ranks.push_back(std::move(r));
  auto merged = mergeRankTraces(ranks);
  ASSERT_TRUE(merged.ok());
  ASSERT_EQ(merged->runs.size(), 1u);
  EXPECT_EQ(merged->runs[0].name, "rank 3");
  EXPECT_EQ(merged->runs[0].workload, "data-parallel");
  EXPECT_EQ(merged->runs[0].configValue("rank"), "3");
  for (uint16_t run : merged->events.run()) EXPECT_EQ(run, 0);
  EXPECT_EQ(merged->phases[0].run, 0);
}

TEST(TraceMerge, SeveralRunsPerRankKeepTheirNames) {
  RankTrace r = rankTrace(0, 0, 100, "x");
  r.trace.runs.push_back(sawtooth::Run{"sharded", "data-parallel", {}, {}});
  std::vector<RankTrace> ranks;
  ranks.push_back(std::move(r));
  auto merged = mergeRankTraces(ranks);
  ASSERT_TRUE(merged.ok());
  ASSERT_EQ(merged->runs.size(), 2u);
  EXPECT_EQ(merged->runs[0].name, "rank 0: plain");
  EXPECT_EQ(merged->runs[1].name, "rank 0: sharded");
}

TEST(TraceMerge, RefusesWhatItCannotAlign) {
  EXPECT_FALSE(mergeRankTraces({}).ok());

  std::vector<RankTrace> twice = {rankTrace(1, 0, 8, "a"), rankTrace(1, 0, 8, "b")};
  auto dup = mergeRankTraces(twice);
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("rank 1 appears twice"), std::string::npos) << dup.error().message;

  std::vector<RankTrace> no_clock = {rankTrace(0, 0, 8, "a"), rankTrace(1, 0, 8, "b")};
  no_clock[1].trace.meta.erase("t0_clock_ns");
  auto missing = mergeRankTraces(no_clock);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("rank 1"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find("t0_clock_ns"), std::string::npos);

  no_clock[1].trace.meta["t0_clock_ns"] = "12ab";
  auto bad = mergeRankTraces(no_clock);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unreadable"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace sawtooth
