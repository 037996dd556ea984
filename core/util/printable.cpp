#include "core/util/printable.h"

#include <cstdint>

#include <fmt/format.h>

namespace sawtooth {
namespace {

// The code point of the UTF-8 sequence at text[i] and its length; 0 when it is not well-formed
// (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short).
size_t decode(std::string_view text, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(text[i + k]); };
  const uint8_t lead = b(0);
  size_t n = 0;
  uint32_t min = 0;
  if (lead >= 0xc2 && lead <= 0xdf) n = 2, cp = lead & 0x1f, min = 0x80;
  else if (lead >= 0xe0 && lead <= 0xef) n = 3, cp = lead & 0x0f, min = 0x800;
  else if (lead >= 0xf0 && lead <= 0xf4) n = 4, cp = lead & 0x07, min = 0x10000;
  else return 0;
  if (text.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (b(k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

bool hidden(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) ||                    // C1 controls (CSI is U+009B)
         cp == 0x200e || cp == 0x200f || cp == 0x061c ||  // direction marks
         (cp >= 0x202a && cp <= 0x202e) ||                // embeddings and overrides
         (cp >= 0x2066 && cp <= 0x2069) ||                // isolates
         cp == 0x2028 || cp == 0x2029;                    // line and paragraph separators
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c < 0x80) {
      if (c == '\n') out += "\\n";
      else if (c == '\t') out += "\\t";
      else if (c == '\r') out += "\\r";
      else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = decode(text, i, cp);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else {
      if (hidden(cp)) out += fmt::format("\\u{:04x}", cp);
      else out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace sawtooth
