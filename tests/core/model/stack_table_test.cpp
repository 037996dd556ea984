#include <gtest/gtest.h>

#include "core/model/stack_table.h"
#include "tests/core/util/fixed_hash_collisions.h"

namespace sawtooth {
namespace {

TEST(StackTable, InternsFramesAndStacksOnce) {
  StackTable table;
  const uint32_t a = table.internFrame("forward", "linear.py", 134);
  const uint32_t b = table.internFrame("backward", "", 0);
  EXPECT_EQ(table.internFrame("forward", "linear.py", 134), a);
  EXPECT_NE(table.internFrame("forward", "linear.py", 135), a);
  const std::vector<uint32_t> s1{a, b}, s2{b, a};
  const uint32_t id1 = table.internStack(s1);
  EXPECT_EQ(table.internStack(s1), id1);
  const uint32_t id2 = table.internStack(s2);
  EXPECT_NE(id1, id2);
  ASSERT_EQ(table.stack(id1).size(), 2u);
  EXPECT_EQ(table.frame(table.stack(id1)[0]).name, "forward");
  EXPECT_EQ(table.frame(table.stack(id2)[0]).name, "backward");
  EXPECT_TRUE(table.stack(12345).empty());
}

TEST(StackTable, NamesWithEmbeddedSeparatorsStayDistinct) {
  StackTable table;
  const uint32_t a = table.internFrame(std::string_view("a\0b", 3), "c", 1);
  const uint32_t b = table.internFrame("a", std::string_view("b\0c", 3), 1);
  EXPECT_NE(a, b);
}

// Frames a file chose so that the fixed hash put them all on one probe sequence (each new frame
// walked every earlier one: 100 k of them took minutes); keyed, their longest run stays short.
TEST(StackTable, FramesBuiltToCollideDoNotShareAProbeSequence) {
  StackTable table;
  ASSERT_EQ(table.internString("f"), 0u);
  ASSERT_EQ(table.internString("model.py"), 1u);  // the frame's first hashed word: name 0, file 1
  const auto lines = test::collidingLines(20000);
  std::vector<uint32_t> ids;
  for (uint64_t line : lines) ids.push_back(table.internFrameIds(0, 1, static_cast<int64_t>(line)));
  ASSERT_EQ(table.frameCount(), lines.size());
  EXPECT_EQ(table.internFrame("f", "model.py", static_cast<int64_t>(lines[12345])), ids[12345]);
  EXPECT_LT(table.longestIndexRun(), 200u);  // 20,000 under the fixed hash
}

}  // namespace
}  // namespace sawtooth
