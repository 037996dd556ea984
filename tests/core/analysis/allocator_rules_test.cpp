#include <gtest/gtest.h>

#include "core/analysis/allocator_rules.h"

namespace sawtooth {
namespace {

constexpr int64_t MB = 1 << 20;

TEST(AllocatorRules, RoundSizeByDefault) {
  const AllocatorSettings s;
  EXPECT_EQ(roundSize(0, s), 512);
  EXPECT_EQ(roundSize(4, s), 512);
  EXPECT_EQ(roundSize(512, s), 512);
  EXPECT_EQ(roundSize(513, s), 1024);
  EXPECT_EQ(roundSize(3 * MB + 1, s), 3 * MB + 512);
  EXPECT_EQ(roundSize(int64_t{1} << 61, s), int64_t{1} << 61);  // beyond any device: left alone
}

TEST(AllocatorRules, RoundSizeWithPowerOfTwoDivisions) {
  AllocatorSettings s;
  s.roundup_power2_divisions.fill(4);
  // [1, 2) MiB in four: 1, 1.25, 1.5, 1.75 MiB.
  EXPECT_EQ(roundSize(1363149, s), 1572864);
  EXPECT_EQ(roundSize(1572864, s), 1572864);
  EXPECT_EQ(roundSize(4 * MB, s), 4 * MB);  // a power of two stays
  EXPECT_EQ(roundSize(1200, s), 1536);      // not above 512 * divisions: plain rounding
  s.roundup_power2_divisions[1] = 8;        // [2, 4) MiB in eight steps of 256 KiB
  EXPECT_EQ(roundSize(3 * MB + 1, s), 3 * MB + 256 * 1024);
}

TEST(AllocatorRules, SegmentSizesAndSplitting) {
  AllocatorSettings s;
  EXPECT_EQ(segmentSizeFor(512, s), 2 * MB);
  EXPECT_EQ(segmentSizeFor(MB, s), 2 * MB);
  EXPECT_EQ(segmentSizeFor(MB + 512, s), 20 * MB);
  EXPECT_EQ(segmentSizeFor(10 * MB, s), 10 * MB);
  EXPECT_EQ(segmentSizeFor(11 * MB + 1, s), 12 * MB);
  EXPECT_TRUE(shouldSplit(2 * MB, 512, true, s));        // small pool: any remainder of 512 or more
  EXPECT_FALSE(shouldSplit(2 * MB, 2 * MB, true, s));
  EXPECT_TRUE(shouldSplit(20 * MB, 18 * MB, false, s));  // large pool: more than 1 MiB left
  EXPECT_FALSE(shouldSplit(20 * MB, 19 * MB, false, s)); // exactly 1 MiB left stays in the block
  EXPECT_EQ(largestUnsplitBlock(19 * MB, false, s), 20 * MB);
  EXPECT_EQ(largestUnsplitBlock(19 * MB, true, s), 19 * MB);
  s.expandable_segments = true;
  EXPECT_TRUE(shouldSplit(20 * MB, 20 * MB - 512, false, s));
  s.expandable_segments = false;
  s.max_split_size = 64 * MB;
  EXPECT_FALSE(shouldSplit(200 * MB, 64 * MB, false, s));  // oversize blocks are never split
  EXPECT_EQ(largestUnsplitBlock(64 * MB, false, s), 84 * MB - 512);
}

TEST(AllocatorRules, ConfStringAsPyTorchParsesIt) {
  AllocatorSettings s;
  applyAllocConf(s, "max_split_size_mb:64, expandable_segments:True,large_segment_size_mb:40,"
                    "roundup_power2_divisions:[64:8,256:4,1024:4,>:1],max_non_split_rounding_mb:30");
  EXPECT_EQ(s.max_split_size, 64 * MB);
  EXPECT_TRUE(s.expandable_segments);
  EXPECT_EQ(s.large_segment_size, 40 * MB);
  EXPECT_EQ(s.max_non_split_rounding, 30 * MB);
  // The first interval also covers those below it; '>' every interval after the last one named.
  const std::array<int64_t, 16> expected{8, 8, 8, 8, 8, 8, 8, 0, 4, 0, 4, 1, 1, 1, 1, 1};
  EXPECT_EQ(s.roundup_power2_divisions, expected);
  applyAllocConf(s, "roundup_power2_divisions:2");
  EXPECT_EQ(s.roundup_power2_divisions[0], 2);
  EXPECT_EQ(s.roundup_power2_divisions[15], 2);
  AllocatorSettings odd;  // nonsense is ignored, never fatal
  applyAllocConf(odd, "max_split_size_mb:,roundup_power2_divisions:[64:x,],expandable_segments");
  EXPECT_EQ(odd.max_split_size, kUnlimited);
  EXPECT_FALSE(odd.expandable_segments);
}

TEST(AllocatorRules, SettingsFromASnapshotsMetadata) {
  Trace t;
  t.meta["allocator.PYTORCH_CUDA_ALLOC_CONF"] = "large_segment_size_mb:32,max_split_size_mb:100";
  t.meta["allocator.max_split_size"] = "-1";  // the dict wins: SIZE_MAX as PyTorch pickles it
  t.meta["allocator.expandable_segments"] = "true";
  t.meta["allocator.roundup_power2_divisions"] = R"({"1": 4, "2": 0, "4": 8, "32768": 1})";
  const AllocatorSettings s = allocatorSettings(t);
  EXPECT_TRUE(s.from_trace);
  EXPECT_EQ(s.max_split_size, kUnlimited);
  EXPECT_EQ(s.large_segment_size, 32 * MB);
  EXPECT_TRUE(s.expandable_segments);
  EXPECT_EQ(s.roundup_power2_divisions[0], 4);
  EXPECT_EQ(s.roundup_power2_divisions[2], 8);
  EXPECT_EQ(s.roundup_power2_divisions[15], 1);
  EXPECT_FALSE(allocatorSettings(Trace{}).from_trace);
}

}  // namespace
}  // namespace sawtooth
