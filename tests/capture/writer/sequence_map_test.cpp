#include <gtest/gtest.h>

#include "capture/writer/sequence_map.h"

namespace sawtooth::capture {
namespace {

// Net [0, 10) holds a [1, 4) and b [4, 9), b holds c [5, 7); Net made node 0 and node 9 itself.
SequenceMap net() {
  SequenceMap map;
  map.open(1, /*Net*/ 0, 0);
  map.open(1, /*a*/ 1, 1);
  map.close(1, 1, 4);
  map.open(1, /*b*/ 2, 4);
  map.open(1, /*c*/ 3, 5);
  map.close(1, 3, 7);
  map.close(1, 2, 9);
  map.close(1, 0, 10);
  return map;
}

TEST(SequenceMap, TheInnermostCallThatMadeTheNode) {
  const SequenceMap map = net();
  EXPECT_EQ(map.find(1, 0), 0u);
  for (uint64_t s : {1, 2, 3}) EXPECT_EQ(map.find(1, s), 1u) << s;
  EXPECT_EQ(map.find(1, 4), 2u);
  EXPECT_EQ(map.find(1, 5), 3u);
  EXPECT_EQ(map.find(1, 6), 3u);
  EXPECT_EQ(map.find(1, 7), 2u);  // after c, still inside b
  EXPECT_EQ(map.find(1, 9), 0u);  // after b, Net's own
  EXPECT_EQ(map.find(1, 10), SequenceMap::kNone);  // after every call: the loss, outside modules
  EXPECT_EQ(map.find(2, 5), SequenceMap::kNone);   // another thread's numbers are its own
}

TEST(SequenceMap, AModuleCalledTwiceAndAMissedExit) {
  SequenceMap map;
  map.open(1, 7, 0);
  map.close(1, 7, 2);
  map.open(1, 7, 2);
  map.open(1, 8, 3);  // its exit never comes
  map.close(1, 7, 5);
  EXPECT_EQ(map.find(1, 1), 7u);
  EXPECT_EQ(map.find(1, 3), 8u);
  EXPECT_EQ(map.find(1, 4), 8u);
  EXPECT_EQ(map.find(1, 5), SequenceMap::kNone);  // both ended at 5
  map.open(1, 9, 5);  // an open call holds what it made so far
  EXPECT_EQ(map.find(1, 100), 9u);
}

TEST(SequenceMap, KeepsTheNewestCallsOnly) {
  SequenceMap map(/*max_per_thread*/ 4);
  for (uint32_t m = 0; m < 10; ++m) {
    map.open(1, m, 10 * m);
    map.close(1, m, 10 * m + 10);
  }
  EXPECT_EQ(map.size(), 4u);
  EXPECT_EQ(map.find(1, 95), 9u);
  EXPECT_EQ(map.find(1, 15), SequenceMap::kNone);  // forgotten
}

}  // namespace
}  // namespace sawtooth::capture
