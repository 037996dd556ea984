#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

// A long history (the lookup narrows its range from the newest call back): every number of every
// step, old and new, inside and between calls, and numbers equal to calls' begins, ends and runs of
// equal begins, gives what a scan of all the calls gives.
TEST(SequenceMap, ALongHistoryAnswersAsAScanOfEveryCall) {
  struct Call {
    uint64_t begin, end;
    int parent;
    uint32_t module;
  };
  std::vector<Call> calls;
  std::vector<int> open;
  SequenceMap map;
  uint64_t seq = 0;
  auto enter = [&](uint32_t module) {
    map.open(1, module, seq);
    calls.push_back({seq, UINT64_MAX, open.empty() ? -1 : open.back(), module});
    open.push_back(static_cast<int>(calls.size()) - 1);
  };
  auto leave = [&] {
    map.close(1, calls[open.back()].module, seq);
    calls[open.back()].end = seq;
    open.pop_back();
  };
  for (int step = 0; step < 300; ++step) {
    enter(0);
    for (uint32_t block = 0; block < 5; ++block) {
      enter(1 + block);
      enter(10 + block);  // begins where its parent does
      seq += block % 3;   // some calls make no node
      leave();
      enter(20 + block);
      seq += 2;
      leave();
      leave();
    }
    seq += 1;  // the root's own node, after its blocks
    leave();
    seq += step % 2;  // outside every call
  }
  auto scan = [&](uint64_t s) {
    int last = -1;
    for (int i = 0; i < static_cast<int>(calls.size()); ++i)
      if (calls[i].begin <= s) last = i;
    for (int c = last; c >= 0; c = calls[c].parent)
      if (s < calls[c].end) return calls[c].module;
    return SequenceMap::kNone;
  };
  for (uint64_t s = 0; s <= seq + 2; ++s) ASSERT_EQ(map.find(1, s), scan(s)) << s;
}

}  // namespace
}  // namespace sawtooth::capture
