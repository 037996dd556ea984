// A recorded process' frames, stacks and names are kept once and within their budgets, however
// the program defines them (issue 27, item 5: 1 KB of stacks naming one long frame used to cost
// the recorder ~32 MB).

#include <gtest/gtest.h>

#include <string>

#include "capture/ingest/ingest_limits.h"
#include "capture/ingest/interned_tables.h"

namespace sawtooth::record {
namespace {

TEST(InternedTables, AFrameIsKeptOnceWhateverNamesIt) {
  InternedTables t;
  const std::string name(limits::kFrameTextBytes * 4, 'n');
  FramePtr a = t.frame(name, "train.py", 3);
  FramePtr b = t.frame(name, "train.py", 3);
  EXPECT_EQ(a.get(), b.get()) << "the same text is one frame";
  EXPECT_EQ(a->name.size(), limits::kFrameTextBytes) << "a frame's text is cut";
  EXPECT_NE(t.frame(name, "train.py", 4).get(), a.get()) << "another line is another frame";
  const size_t text = t.textBytes();
  // 50 stacks naming it 256 times each: the frame's text is not copied (what the stacks spell out
  // is counted against its own budget, below).
  for (int i = 0; i < 50; ++i) ASSERT_NE(t.stack(StackFrames(256, a)), nullptr);
  EXPECT_EQ(t.textBytes(), text);
  EXPECT_EQ(t.dropped().stacks, 0u);
}

TEST(InternedTables, BeyondTheBudgetsDefinitionsAreDroppedAndCounted) {
  InternedTables t;
  const std::string text(limits::kFrameTextBytes, 't');
  size_t kept = 0;
  FramePtr last;
  for (int line = 0; line < 20'000; ++line) {
    last = t.frame(text, text, line);
    if (last->line == line) ++kept;
  }
  EXPECT_LE(t.textBytes(), limits::kTextBytes);
  EXPECT_GT(t.dropped().frames, 0u);
  EXPECT_LT(kept, 20'000u);
  EXPECT_NE(last->name.find("not kept"), std::string::npos) << "the placeholder says why";

  // Stacks: their frame references and the text they spell out are bounded.
  InternedTables s;
  FramePtr f = s.frame(std::string(limits::kFrameTextBytes, 'f'), "x.py", 1);
  size_t stacks = 0;
  while (s.stack(StackFrames(256, f)) != nullptr) ASSERT_LT(++stacks, 1'000'000u);
  EXPECT_EQ(s.dropped().stacks, 1u);
  EXPECT_LE(s.stackTextBytes(), limits::kStackTextBytes);

  // Names: "?" (id 0) beyond the budget.
  InternedTables n;
  EXPECT_EQ(n.nameText(0), "?");
  const uint32_t forward = n.name("forward");
  EXPECT_EQ(n.name("forward"), forward);
  EXPECT_EQ(n.nameText(forward), "forward");
  uint32_t id = 1;
  for (int i = 0; id != 0 && i < 100'000; ++i) id = n.name(std::to_string(i) + text);
  EXPECT_EQ(id, 0u);
  EXPECT_GT(n.dropped().names, 0u);
}

}  // namespace
}  // namespace sawtooth::record
