#include <gtest/gtest.h>

#include <filesystem>

#include "core/analysis/allocator_history.h"
#include "core/analysis/oom_explanation.h"
#include "core/io/file_bytes.h"
#include "core/io/native_format.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

constexpr int64_t MB = 1 << 20;
constexpr uint64_t kBase = 0x7f0000000000;

Event ev(Action a, uint64_t addr, int64_t size, uint64_t stream = 0) {
  Event e;
  e.action = a;
  e.addr = addr;
  e.size = size;
  e.stream = stream;
  return e;
}

Trace load(const std::string& path) {
  auto t = loadTrace(path);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace{};
}

std::vector<std::string> snapshotFixtures() {
  std::vector<std::string> out;
  for (const char* name : {"anatomy_adam_snapshot.pickle", "anatomy_adam_snapshot_protocol0.pickle.gz",
                           "oom_mlp_snapshot_protocol2.pickle.gz", "synthetic_expandable_streams.pickle",
                           "synthetic_expandable_window.pickle", "synthetic_roundup_oversize.pickle",
                           "synthetic_window_streams.pickle"})
    out.push_back(test::dataPath(name));
  return out;
}

// A snapshot's trace whose allocator holds, at the end, one segment at kBase with nothing in use.
Trace endsWithOneFreeSegment(int64_t size) {
  Trace t;
  t.segments_known = true;
  SnapshotSegment seg;
  seg.address = kBase;
  seg.total_size = size;
  seg.blocks.push_back(SnapshotBlock{kBase, size, 0, BlockState::Inactive});
  t.segments.push_back(seg);
  return t;
}

AllocatorHistory build(const Trace& t, int16_t device = 0, ReplayOptions options = {}) {
  auto h = AllocatorHistory::build(t, device, options);
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
  return std::move(h.value());
}

// Every snapshot fixture: the replay ends exactly in the snapshot's own segments, and what it
// counts as allocated at the end is the sum of the snapshot's allocated blocks.
TEST(AllocatorReplay, EndsExactlyInEverySnapshotsSegments) {
  for (const std::string& path : snapshotFixtures()) {
    SCOPED_TRACE(path);
    const Trace t = load(path);
    ASSERT_TRUE(t.segments_known);
    const AllocatorHistory h = build(t);
    const ReplayReport& r = h.report();
    EXPECT_TRUE(r.snapshot_checked);
    EXPECT_TRUE(r.matches_snapshot) << (r.differences.empty() ? "" : r.differences.front());
    EXPECT_EQ(r.anomalies, 0u) << (r.anomaly_notes.empty() ? "" : r.anomaly_notes.front());
    int64_t allocated = 0;
    for (const SnapshotSegment& s : t.segments)
      for (const SnapshotBlock& b : s.blocks)
        if (b.state == BlockState::ActiveAllocated) allocated += b.size;
    EXPECT_EQ(r.final_allocated_bytes, allocated);
    EXPECT_EQ(h.finalState().allocated_bytes, allocated);
  }
}

// The synthetic fixtures come with the allocator model's own allocated_bytes counter.
TEST(AllocatorReplay, PeakEqualsTheModelsOwnCounter) {
  const auto expected = nlohmann::json::parse(readFileBytes(test::dataPath("expected_allocator.json")).value());
  for (const auto& [name, e] : expected.items()) {
    SCOPED_TRACE(name);
    const Trace t = load(test::dataPath(name));
    const AllocatorHistory h = build(t);
    const auto& d = e.at("devices").at(0);
    EXPECT_EQ(h.report().final_allocated_bytes, d.at("final_allocated_block_bytes").get<int64_t>());
    // A guess about blocks from before the trace can only make the peak smaller, by at most the bound.
    const int64_t truth = d.at("peak_allocated_block_bytes").get<int64_t>();
    EXPECT_LE(h.report().peak_allocated_bytes, truth);
    EXPECT_GE(h.report().peak_allocated_bytes + h.report().inferred_bytes_max, truth);
    if (h.report().inferred_blocks == 0) {
      EXPECT_EQ(h.report().peak_allocated_bytes, truth);
    }
  }
}

// H200 recordings of the built-in workloads carry PyTorch's own block sizes (c10 memory
// reporting, source "host"): the replay's allocated bytes follow them allocation by allocation.
TEST(AllocatorReplay, BlockSizesEqualPyTorchsOwnReportsOnTheH200Samples) {
  for (const char* name : {"anatomy.sawtooth", "precision.sawtooth", "checkpointing.sawtooth", "accumulation.sawtooth"}) {
    SCOPED_TRACE(name);
    const Trace t = load(std::string(SAWTOOTH_SAMPLES) + "/" + name);
    const AllocatorHistory h = build(t);
    EXPECT_TRUE(h.report().exact());
    std::vector<int64_t> reported, replayed;
    int64_t live = 0, peak = 0;
    for (size_t i = 0; i < t.events.size(); ++i) {
      if (t.events.device()[i] != 0 || t.events.source()[i] != Source::Host) continue;
      const bool alloc = t.events.action()[i] == Action::Alloc;
      if (alloc) reported.push_back(t.events.sizes()[i]);
      live += alloc ? t.events.sizes()[i] : -t.events.sizes()[i];
      peak = std::max(peak, live);
    }
    const EventSeries& s = h.series().allocated_bytes;
    for (size_t p = 0; p < h.events().size(); ++p)
      if (t.events.action()[h.events()[p]] == Action::Alloc)
        replayed.push_back(s.values[p] - s.after(static_cast<int64_t>(p) - 1));
    EXPECT_EQ(replayed, reported);
    EXPECT_EQ(h.report().peak_allocated_bytes, peak);
    EXPECT_EQ(h.report().final_allocated_bytes, live);
  }
}

// stateAfter from checkpoints equals a replay from the start, and the series agree with it.
TEST(AllocatorReplay, CheckpointsAndSeriesAgreeWithAReplayFromTheStart) {
  const Trace t = load(test::dataPath("synthetic_expandable_streams.pickle"));
  ReplayOptions dense;
  dense.first_checkpoint_interval = 7;
  dense.checkpoint_budget_bytes = 40 * 1024;  // forces thinning: the interval doubles
  const AllocatorHistory h = build(t, 0, dense);
  ReplayOptions none;
  none.checkpoints = false;
  const AllocatorHistory plain = build(t, 0, none);
  EXPECT_GT(h.checkpointCount(), 2u);
  EXPECT_LE(h.checkpointBytes(), dense.checkpoint_budget_bytes);
  EXPECT_EQ(plain.checkpointCount(), 1u);
  const AllocatorSeries& s = h.series();
  for (int64_t p = -1; p < static_cast<int64_t>(h.events().size()); ++p) {
    SCOPED_TRACE(p);
    const AllocatorState a = h.stateAfter(p), b = plain.stateAfter(p);
    ASSERT_EQ(a.segments.size(), b.segments.size());
    for (size_t i = 0; i < a.segments.size(); ++i) {
      ASSERT_EQ(a.segments[i].blocks.size(), b.segments[i].blocks.size());
      for (size_t k = 0; k < a.segments[i].blocks.size(); ++k) {
        EXPECT_EQ(a.segments[i].blocks[k].address, b.segments[i].blocks[k].address);
        EXPECT_EQ(a.segments[i].blocks[k].size, b.segments[i].blocks[k].size);
        EXPECT_EQ(a.segments[i].blocks[k].state, b.segments[i].blocks[k].state);
      }
    }
    EXPECT_EQ(a.position, p);
    EXPECT_EQ(s.allocated_bytes.after(p), a.allocated_bytes);
    EXPECT_EQ(s.reserved_minus_allocated.after(p), a.reserved - a.allocated_bytes);
    EXPECT_EQ(s.internal_waste.after(p), a.internal_waste);
    EXPECT_EQ(s.largest_free_block.after(p), a.largest_free_block);
    EXPECT_EQ(s.external_fragmentation.after(p), a.external_fragmentation);
    for (const PoolLane& lane : s.largest_free_by_pool) {
      int64_t v = lane.start;
      for (size_t c = 0; c < lane.position.size() && lane.position[c] <= p; ++c) v = lane.value[c];
      int64_t expected = 0;
      for (const PoolFree& pool : a.pools)
        if (pool.small_pool == lane.small_pool && pool.stream == lane.stream) expected = pool.largest_free_block;
      EXPECT_EQ(v, expected);
    }
  }
  // The fixture's two streams and both pools each have a lane.
  EXPECT_EQ(s.largest_free_by_pool.size(), 4u);
}

// A small trace by hand: splitting, the unsplit remainder of at most 1 MiB, merging, and a free
// held back by another stream (no longer allocated, still active).
TEST(AllocatorReplay, SplitsMergesAndPendingFrees) {
  Trace t;
  t.events.push(ev(Action::SegmentAlloc, kBase, 20 * MB));
  t.events.push(ev(Action::Alloc, kBase, 5 * MB));                // split: 5 MiB + 15 MiB free
  t.events.push(ev(Action::Alloc, kBase + 5 * MB, 14 * MB + 1));  // 14 MiB + 512 leaves 1 MiB - 512: kept whole
  t.events.push(ev(Action::FreeRequested, kBase, 5 * MB));
  t.events.push(ev(Action::FreeRequested, kBase + 5 * MB, 14 * MB + 1));
  t.events.push(ev(Action::FreeCompleted, kBase + 5 * MB, 14 * MB + 1));
  t.events.push(ev(Action::FreeCompleted, kBase, 5 * MB));  // merges into one free block
  t.events.push(ev(Action::SegmentFree, kBase, 20 * MB));
  const AllocatorHistory h = build(t);
  EXPECT_TRUE(h.report().exact());
  const AllocatorState s2 = h.stateAfter(2);
  ASSERT_EQ(s2.segments.size(), 1u);
  ASSERT_EQ(s2.segments[0].blocks.size(), 2u);
  EXPECT_EQ(s2.segments[0].blocks[1].size, 15 * MB);
  EXPECT_EQ(s2.allocated_bytes, 20 * MB);
  EXPECT_EQ(s2.internal_waste, 15 * MB - (14 * MB + 1));
  const AllocatorState s3 = h.stateAfter(3);
  EXPECT_EQ(s3.allocated_bytes, 15 * MB);  // free_requested: no longer allocated ...
  EXPECT_EQ(s3.active_bytes, 20 * MB);     // ... but still active
  EXPECT_EQ(s3.segments[0].blocks[0].state, BlockState::ActivePendingFree);
  const AllocatorState s5 = h.stateAfter(5);
  ASSERT_EQ(s5.segments[0].blocks.size(), 2u);  // a pending block does not merge
  const AllocatorState s6 = h.stateAfter(6);
  ASSERT_EQ(s6.segments[0].blocks.size(), 1u);
  EXPECT_EQ(s6.largest_free_block, 20 * MB);
  EXPECT_TRUE(h.stateAfter(7).segments.empty());
  EXPECT_EQ(h.report().peak_allocated_bytes, 20 * MB);
  EXPECT_EQ(h.series().allocated_bytes.values, (std::vector<int64_t>{0, 5 * MB, 20 * MB, 15 * MB, 0, 0, 0, 0}));
}

// Two cudaMallocs that happen to be neighbours in memory are two segments: their free blocks
// never merge.
TEST(AllocatorReplay, NeighbouringSegmentsStayApart) {
  Trace t;
  t.events.push(ev(Action::SegmentAlloc, kBase, 2 * MB));
  t.events.push(ev(Action::SegmentAlloc, kBase + 2 * MB, 2 * MB));
  t.events.push(ev(Action::Alloc, kBase + 2 * MB, 100));
  t.events.push(ev(Action::FreeCompleted, kBase + 2 * MB, 100));
  const AllocatorHistory h = build(t);
  const AllocatorState s = h.finalState();
  ASSERT_EQ(s.segments.size(), 2u);
  EXPECT_TRUE(s.segments[0].small_pool);
  EXPECT_EQ(s.segments[1].blocks.size(), 1u);
  EXPECT_EQ(s.largest_free_block, 2 * MB);
  EXPECT_EQ(s.external_fragmentation, 2 * MB);
}

// Expandable segments: mapped ranges that touch form one segment; an unmap cuts it in two.
TEST(AllocatorReplay, ExpandableSegmentsGrowAndAreCut) {
  Trace t;
  t.meta["allocator.expandable_segments"] = "true";
  t.events.push(ev(Action::SegmentMap, kBase, 20 * MB));
  t.events.push(ev(Action::Alloc, kBase, 15 * MB));
  t.events.push(ev(Action::SegmentMap, kBase + 20 * MB, 20 * MB));  // joins: 5 MiB + 20 MiB free merge
  t.events.push(ev(Action::Alloc, kBase + 15 * MB, 24 * MB));
  t.events.push(ev(Action::SegmentMap, kBase + 40 * MB, 20 * MB));
  t.events.push(ev(Action::FreeCompleted, kBase + 15 * MB, 24 * MB));
  t.events.push(ev(Action::SegmentUnmap, kBase + 20 * MB, 20 * MB));  // the middle page goes
  const AllocatorHistory h = build(t);
  EXPECT_TRUE(h.report().exact()) << (h.report().anomaly_notes.empty() ? "" : h.report().anomaly_notes.front());
  const AllocatorState s3 = h.stateAfter(3);
  ASSERT_EQ(s3.segments.size(), 1u);
  EXPECT_EQ(s3.segments[0].total_size, 40 * MB);
  EXPECT_TRUE(s3.segments[0].expandable);
  ASSERT_EQ(s3.segments[0].blocks.size(), 3u);  // 15 MiB, 24 MiB, and 1 MiB split off (expandable: any 512 B)
  EXPECT_EQ(s3.segments[0].blocks[2].size, MB);
  const AllocatorState end = h.finalState();
  ASSERT_EQ(end.segments.size(), 2u);
  EXPECT_EQ(end.segments[0].total_size, 20 * MB);
  EXPECT_EQ(end.segments[1].address, kBase + 40 * MB);
  EXPECT_EQ(end.segments[1].total_size, 20 * MB);
  ASSERT_EQ(end.segments[0].blocks.size(), 2u);
  EXPECT_EQ(end.segments[0].blocks[1].size, 5 * MB);  // what was left of the free block before the cut
  EXPECT_EQ(end.reserved, 40 * MB);
}

// A trace that begins mid-run: a block from before it is freed in it, its size unknown; a later
// allocation at the end of that block pins the size down and the replay runs again with it.
TEST(AllocatorReplay, SizesFromBeforeTheTraceAreInferredAndPinnedDown) {
  Trace t = endsWithOneFreeSegment(40 * MB);
  // Before the trace: a 3 MiB + 100 request whose block kept 512 KiB unsplit (3.5 MiB + ...), then free room.
  t.events.push(ev(Action::Alloc, kBase + 3 * MB + MB / 2 + 512, 4 * MB));  // where the block ended
  t.events.push(ev(Action::FreeRequested, kBase, 3 * MB + 100));
  t.events.push(ev(Action::FreeCompleted, kBase, 3 * MB + 100));
  t.events.push(ev(Action::FreeCompleted, kBase + 3 * MB + MB / 2 + 512, 4 * MB));
  const AllocatorHistory h = build(t);
  const ReplayReport& r = h.report();
  EXPECT_TRUE(r.matches_snapshot) << (r.differences.empty() ? "" : r.differences.front());
  EXPECT_EQ(r.anomalies, 0u) << (r.anomaly_notes.empty() ? "" : r.anomaly_notes.front());
  EXPECT_EQ(r.resolved_blocks, 1u);
  EXPECT_EQ(r.inferred_blocks, 0u);
  const AllocatorState start = h.stateAfter(-1);
  ASSERT_EQ(start.segments.size(), 1u);
  ASSERT_EQ(start.segments[0].blocks.size(), 2u);
  EXPECT_EQ(start.segments[0].blocks[0].size, 3 * MB + MB / 2 + 512);
  EXPECT_EQ(start.allocated_bytes, 3 * MB + MB / 2 + 512);
  EXPECT_EQ(r.peak_allocated_bytes, 3 * MB + MB / 2 + 512 + 4 * MB);
}

// A block from before the trace whose end nothing shows keeps a bounded guess.
TEST(AllocatorReplay, AnUnresolvedGuessIsReportedWithItsBound) {
  Trace t = endsWithOneFreeSegment(20 * MB);
  t.events.push(ev(Action::FreeCompleted, kBase, 3 * MB));
  const AllocatorHistory h = build(t);
  const ReplayReport& r = h.report();
  EXPECT_TRUE(r.matches_snapshot);
  EXPECT_EQ(r.inferred_blocks, 1u);
  EXPECT_EQ(r.inferred_bytes_max, MB);  // it may have kept up to 1 MiB unsplit
  EXPECT_FALSE(r.exact());
  const AllocatorState start = h.stateAfter(-1);
  EXPECT_TRUE(start.segments[0].blocks[0].size_inferred);
  EXPECT_EQ(start.segments[0].blocks[0].size, 3 * MB);
  EXPECT_EQ(start.segments[0].blocks[0].size_max, 4 * MB);
}

// What the events contradict is counted and described, never fatal.
TEST(AllocatorReplay, ContradictionsAreCountedNotFatal) {
  Trace t;
  t.events.push(ev(Action::SegmentAlloc, kBase, 2 * MB));
  t.events.push(ev(Action::Alloc, kBase + 100 * MB, 1000));            // in no segment
  t.events.push(ev(Action::FreeCompleted, kBase + 50 * MB, 10));       // nothing there
  t.events.push(ev(Action::SegmentAlloc, kBase + MB, 2 * MB));         // overlaps
  t.events.push(ev(Action::SegmentUnmap, kBase, 4096));                // not expandable
  t.events.push(ev(Action::Alloc, kBase + 4096, 512));                 // inside a free block
  t.events.push(ev(Action::FreeCompleted, kBase + 100 * MB, 1000));
  const AllocatorHistory h = build(t);
  EXPECT_EQ(h.report().anomalies, 5u);
  EXPECT_FALSE(h.report().exact());
  EXPECT_EQ(h.stateAfter(1).outside_segments.size(), 1u);
  EXPECT_EQ(h.stateAfter(1).allocated_bytes, 1024);
  EXPECT_EQ(h.report().final_allocated_bytes, 512);
}

TEST(AllocatorReplay, RefusesTracesWithoutSegments) {
  const Trace t = load(test::dataPath("anatomy_adam_profiler_trace.json.gz"));
  auto h = AllocatorHistory::build(t, 0);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("cannot be replayed"), std::string::npos);
  // Its allocated counter is PyTorch's own (block sizes): that is the peak info reports.
  const auto peak = allocatedBlockPeak(t, 0);
  ASSERT_TRUE(peak.has_value());
  EXPECT_EQ(peak->source, "counter");
}

// Converting to .sawtooth keeps the segments, so the replay of the converted file is the same.
TEST(AllocatorReplay, SegmentsSurviveTheNativeFormat) {
  const Trace t = load(test::dataPath("synthetic_window_streams.pickle"));
  const std::string out = test::tempPath("segments-roundtrip.sawtooth");
  ASSERT_TRUE(writeNative(t, out).ok());
  const Trace back = load(out);
  EXPECT_TRUE(back.segments_known);
  ASSERT_EQ(back.segments.size(), t.segments.size());
  EXPECT_EQ(back.meta.count("segments_known"), 0u);
  const AllocatorHistory a = build(t), b = build(back);
  EXPECT_TRUE(b.report().matches_snapshot);
  EXPECT_EQ(a.series().allocated_bytes.values, b.series().allocated_bytes.values);
  std::filesystem::remove(out);
}

TEST(OomExplanation, SaysWhatIsFreeAndWhatStandsInTheWay) {
  const Trace t = load(test::dataPath("synthetic_window_streams.pickle"));
  const AllocatorHistory h = build(t);
  const auto ooms = explainOoms(t, h);
  ASSERT_EQ(ooms.size(), 1u);
  const OomExplanation& x = ooms[0];
  const AllocatorState s = h.stateAfter(x.position);
  EXPECT_EQ(x.reserved, s.reserved);
  EXPECT_FALSE(x.small_pool);
  EXPECT_EQ(x.requested, 1 << 30);
  int64_t largest = 0;
  for (const PoolFree& p : s.pools)
    if (!p.small_pool && p.stream == 0) largest = p.largest_free_block;
  EXPECT_EQ(x.largest_free, largest);
  EXPECT_GT(x.pool_free, x.largest_free);  // free, but not in one piece
  EXPECT_NE(x.summary.find("contiguous"), std::string::npos);
  EXPECT_TRUE(x.in_the_way.empty());  // no segment is as large as 1 GiB
}

TEST(OomExplanation, FindsTheBlocksInTheWay) {
  Trace t;
  t.events.push(ev(Action::SegmentAlloc, kBase, 20 * MB));
  t.events.push(ev(Action::Alloc, kBase, 4 * MB));
  t.events.push(ev(Action::Alloc, kBase + 4 * MB, 2 * MB));
  t.events.push(ev(Action::Alloc, kBase + 6 * MB, 4 * MB));
  t.events.push(ev(Action::Alloc, kBase + 10 * MB, 8 * MB));
  t.events.push(ev(Action::FreeCompleted, kBase, 4 * MB));
  t.events.push(ev(Action::FreeCompleted, kBase + 6 * MB, 4 * MB));
  t.events.push(ev(Action::Oom, 1 << 20, 9 * MB));  // 8 MiB free in two pieces of 4 MiB (and 2 at the end)
  const AllocatorHistory h = build(t);
  SiteNamer names(t.stacks);
  const OomExplanation x = explainOom(t, h, 7, names);
  EXPECT_EQ(x.pool_free, 10 * MB);
  EXPECT_EQ(x.largest_free, 4 * MB);
  ASSERT_EQ(x.in_the_way.size(), 1u);
  EXPECT_EQ(x.in_the_way[0].blocking_bytes, 2 * MB);  // the 2 MiB block between the two free ones
  EXPECT_EQ(x.in_the_way[0].window_address, kBase);
  EXPECT_EQ(x.in_the_way[0].window_bytes, 10 * MB);
}

}  // namespace
}  // namespace sawtooth
