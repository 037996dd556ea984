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
  EXPECT_EQ(live.onFreeRequested(0, 0x1000, 9), Category::Parameter);
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
  live.onFreeRequested(0, 0x1000, 5);
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

}  // namespace
}  // namespace sawtooth::capture
