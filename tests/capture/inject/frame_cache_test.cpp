// The allocator tracker's cache of symbolized Python frames, without torch: keys stand for
// (code object, instruction offset), pins for the tracebacks that keep code objects alive.

#include <gtest/gtest.h>

#include "capture/inject/frame_cache.h"

namespace sawtooth::tracker {
namespace {

int code_a, code_b, code_c;  // their addresses stand for code objects

TEST(FrameCache, FindsATracebackOnlyWhenEveryFrameIsKnown) {
  FrameCache cache;
  const FrameCache::Key frames[] = {{&code_a, 10}, {&code_b, 4}};
  const uint32_t ids[] = {7, 8};
  std::vector<uint32_t> found = {99};
  EXPECT_FALSE(cache.lookup(frames, 2, found));
  EXPECT_EQ(cache.add(frames, ids, 2, std::make_shared<int>(1)), 2u);
  ASSERT_TRUE(cache.lookup(frames, 2, found));
  EXPECT_EQ(found, (std::vector<uint32_t>{7, 8}));

  const FrameCache::Key other_line[] = {{&code_a, 12}, {&code_b, 4}};
  EXPECT_FALSE(cache.lookup(other_line, 2, found)) << "the same code at another offset is another frame";
  const FrameCache::Key deeper[] = {{&code_c, 0}, {&code_a, 10}, {&code_b, 4}};
  EXPECT_FALSE(cache.lookup(deeper, 3, found));
  EXPECT_TRUE(cache.lookup(frames + 1, 1, found));
  EXPECT_EQ(found, (std::vector<uint32_t>{8}));
}

TEST(FrameCache, KeepsAPinOnlyForATracebackThatAddedFrames) {
  FrameCache cache;
  const FrameCache::Key frames[] = {{&code_a, 10}, {&code_b, 4}};
  const uint32_t ids[] = {1, 2};
  auto first = std::make_shared<int>(1);
  auto second = std::make_shared<int>(2);
  cache.add(frames, ids, 2, first);
  EXPECT_EQ(cache.add(frames, ids, 2, second), 0u);
  EXPECT_EQ(cache.pins(), 1u);
  EXPECT_EQ(first.use_count(), 2) << "the cache holds the traceback that brought the frames";
  EXPECT_EQ(second.use_count(), 1);
}

TEST(FrameCache, ForgetsEverythingPastItsCapacityAndLetsThePinsGo) {
  FrameCache cache(/*capacity*/ 2);
  auto pin = std::make_shared<int>(1);
  const FrameCache::Key frames[] = {{&code_a, 1}, {&code_a, 2}, {&code_a, 3}};
  const uint32_t ids[] = {1, 2, 3};
  cache.add(frames, ids, 2, pin);
  cache.trim();
  EXPECT_EQ(cache.size(), 2u) << "at capacity, not past it";
  cache.add(frames + 2, ids + 2, 1, pin);
  cache.trim();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.pins(), 0u);
  EXPECT_EQ(pin.use_count(), 1);
  std::vector<uint32_t> found;
  EXPECT_FALSE(cache.lookup(frames, 1, found));
}

}  // namespace
}  // namespace sawtooth::tracker
