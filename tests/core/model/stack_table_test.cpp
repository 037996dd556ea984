#include <gtest/gtest.h>

#include "core/model/stack_table.h"

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

}  // namespace
}  // namespace sawtooth
