#pragma once
// Text from a file, made safe to print on a terminal: control characters (newlines, escape
// sequences, ...), DEL, C1 controls, line separators, bidirectional overrides and bytes that are
// not UTF-8 are written as escapes (\n, \x1b, \u202e). A name can then neither move the cursor,
// colour the screen, hide text, nor forge a line of output. Other text, UTF-8 included, is kept.

#include <string>
#include <string_view>

namespace sawtooth {

std::string printable(std::string_view text);

}  // namespace sawtooth
