#include "core/util/printable.h"

#include <gtest/gtest.h>

namespace sawtooth {
namespace {

TEST(Printable, TerminalControlsAndForgedLinesAreEscaped) {
  EXPECT_EQ(printable("adam\x1b[2J\x1b[H\nevents   999"), "adam\\x1b[2J\\x1b[H\\nevents   999");
  EXPECT_EQ(printable("a\tb\rc\x7f"), "a\\tb\\rc\\x7f");
  EXPECT_EQ(printable(std::string_view("nul\0here", 8)), "nul\\x00here");
}

TEST(Printable, UnicodeIsKeptButC1ControlsAndDirectionOverridesAreNot) {
  EXPECT_EQ(printable("NVIDIA H200 · 141 GB ≤ é 中"), "NVIDIA H200 · 141 GB ≤ é 中");
  EXPECT_EQ(printable("\xc2\x9b" "31m"), "\\u009b31m");           // CSI as one code point
  EXPECT_EQ(printable("x\xe2\x80\xae" "exe.doc"), "x\\u202eexe.doc");  // right-to-left override
  EXPECT_EQ(printable("a\xe2\x80\xa8" "b"), "a\\u2028b");            // line separator
}

TEST(Printable, BytesThatAreNotUtf8AreEscapedOneByOne) {
  EXPECT_EQ(printable("\xff"), "\\xff");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");        // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("ok\xe2\x82"), "ok\\xe2\\x82");    // cut short
}

}  // namespace
}  // namespace sawtooth
