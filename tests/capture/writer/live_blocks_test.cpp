#include <gtest/gtest.h>

#include "capture/writer/live_blocks.h"

namespace sawtooth::capture {
namespace {

TEST(LiveBlocks, TagsReachTheAllocationRowAndLaterFrees) {
  LiveBlocks live;
  std::vector<LiveBlocks::Update> updates;
  live.onAlloc(0, 0x1000, 256, /*seq*/ 7, /*phase*/ 1);
  EXPECT_TRUE(live.tag(0, 0x1000, Category::Parameter, updates));
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].seq, 7u);
  EXPECT_EQ(updates[0].category, Category::Parameter);
  EXPECT_EQ(live.onFreeRequested(0, 0x1000, 9, updates), Category::Parameter);
  EXPECT_EQ(live.onFreeCompleted(0, 0x1000, 10, 5, updates), Category::Parameter);
  EXPECT_EQ(live.size(), 0u);
}

TEST(LiveBlocks, TagInsideABlockFindsIt) {
  LiveBlocks live;
  std::vector<LiveBlocks::Update> updates;
  live.onAlloc(0, 0x1000, 0x100, 1, kNoPhase);
  live.onAlloc(0, 0x2000, 0x100, 2, kNoPhase);
  EXPECT_TRUE(live.tag(0, 0x2010, Category::Input, updates));
  EXPECT_FALSE(live.tag(0, 0x1100, Category::Input, updates));  // just past the first block
  EXPECT_FALSE(live.tag(1, 0x2010, Category::Input, updates));  // other device
  EXPECT_FALSE(live.tag(0, 0x10, Category::Input, updates));
  EXPECT_EQ(live.liveBytes(Category::Input), 0x100);
}

TEST(LiveBlocks, BornAndFreedInOnePhaseIsTemporary) {
  LiveBlocks live;
  std::vector<LiveBlocks::Update> updates;
  live.onAlloc(0, 0x1000, 64, 3, /*phase*/ 4);
  live.onFreeRequested(0, 0x1000, 5, updates);
  EXPECT_EQ(live.onFreeCompleted(0, 0x1000, 6, /*current phase*/ 4, updates), Category::Temporary);
  // Both earlier rows (alloc and free_requested) learn it.
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(updates[0].seq, 3u);
  EXPECT_EQ(updates[1].seq, 5u);
  live.onAlloc(0, 0x1000, 64, 8, 4);
  EXPECT_EQ(live.onFreeCompleted(0, 0x1000, 9, 6, updates), Category::Unknown);  // crossed a phase
}

TEST(LiveBlocks, ForwardBlocksAliveAtBackwardAreActivations) {
  LiveBlocks live;
  std::vector<LiveBlocks::Update> updates;
  live.onAlloc(0, 0x1000, 64, 1, /*forward*/ 2);
  live.onAlloc(0, 0x2000, 64, 2, /*setup*/ 1);
  live.onAlloc(0, 0x3000, 64, 3, /*forward*/ 2);
  live.tag(0, 0x3000, Category::Input, updates);
  updates.clear();
  live.markActivations([](uint32_t phase) { return phase == 2; }, updates);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].seq, 1u);
  EXPECT_EQ(live.liveBytes(Category::Activation), 64);
}

// A library's workspace made in the first forward lives to the end: the first backward marks it
// and, finding it alive at its end, undoes that. Later backward passes change only what it is in
// memory: its rows (written long ago) would otherwise change category twice a step, and each
// change of an old row moves the file's summaries from that row to the end.
TEST(LiveBlocks, ABlockThatOutlivesEveryBackwardIsNotRewrittenEveryStep) {
  LiveBlocks live;
  std::vector<LiveBlocks::Update> updates;
  const auto forward = [](uint32_t phase) { return phase % 2 == 0; };
  live.onAlloc(0, 0x1000, 4 << 20, /*seq*/ 1, /*forward*/ 0);
  live.markActivations(forward, updates);
  live.unmarkSurvivors(forward, updates);
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(updates[0].category, Category::Activation);
  EXPECT_EQ(updates[1].category, Category::Unknown);
  updates.clear();
  for (int step = 1; step < 1000; ++step) {
    live.markActivations(forward, updates);
    EXPECT_EQ(live.liveBytes(Category::Activation), 4 << 20);
    live.unmarkSurvivors(forward, updates);
  }
  EXPECT_EQ(updates.size(), 0u);
  EXPECT_EQ(live.liveBytes(Category::Unknown), 4 << 20);
  live.settle(updates);
  EXPECT_EQ(updates.size(), 0u);  // its rows say unknown, as it is
}

// Pipeline schedules run a second forward before the first backward (F1 F2 B1 F3 B2 ...): F2's
// activations outlive B1 and die in B2. They end as activations, their rows told when they die.
TEST(LiveBlocks, AnActivationThatOutlivesOneBackwardIsOneWhenItDiesInTheNext) {
  LiveBlocks live;
  std::vector<LiveBlocks::Update> updates;
  const auto forward = [](uint32_t phase) { return phase == 1 || phase == 2; };
  live.onAlloc(0, 0x2000, 64, /*seq*/ 5, /*F2*/ 2);
  live.markActivations(forward, updates);   // B1 begins
  live.unmarkSurvivors(forward, updates);   // B1 ends: F2's block is still alive
  updates.clear();
  live.markActivations(forward, updates);   // B2 begins
  EXPECT_EQ(updates.size(), 0u);            // (waits for the block's end)
  EXPECT_EQ(live.liveBytes(Category::Activation), 64);
  EXPECT_EQ(live.onFreeRequested(0, 0x2000, 9, updates), Category::Activation);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].seq, 5u);
  EXPECT_EQ(updates[0].category, Category::Activation);
  EXPECT_EQ(live.onFreeCompleted(0, 0x2000, 10, /*B2*/ 4, updates), Category::Activation);
  EXPECT_EQ(updates.size(), 1u);

  // A block whose mark waits when the recording ends is told then.
  updates.clear();
  live.onAlloc(0, 0x3000, 64, /*seq*/ 11, /*F3*/ 1);
  live.markActivations(forward, updates);
  live.unmarkSurvivors(forward, updates);
  updates.clear();
  live.markActivations(forward, updates);
  EXPECT_EQ(updates.size(), 0u);
  live.settle(updates);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].seq, 11u);
  EXPECT_EQ(updates[0].category, Category::Activation);
}

}  // namespace
}  // namespace sawtooth::capture
