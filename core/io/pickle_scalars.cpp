#include "core/io/pickle_scalars.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace sawtooth::pickle {
namespace {

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

uint8_t byteAt(std::string_view s, size_t k) { return static_cast<uint8_t>(s[k]); }

}  // namespace

std::optional<int64_t> longToInt64(std::string_view p) {
  const size_t len = p.size();
  if (len == 0) return 0;
  // Fits when every byte past the 8th is sign fill and the 8th byte's top bit agrees with it.
  const bool negative = byteAt(p, len - 1) & 0x80;
  for (size_t k = 8; k < len; ++k)
    if (byteAt(p, k) != (negative ? 0xff : 0x00)) return std::nullopt;
  if (len >= 8 && static_cast<bool>(byteAt(p, 7) & 0x80) != negative) return std::nullopt;
  uint64_t u = negative ? ~uint64_t{0} : 0;
  for (size_t k = 0; k < std::min<size_t>(len, 8); ++k) {
    u &= ~(uint64_t{0xff} << (8 * k));
    u |= uint64_t{byteAt(p, k)} << (8 * k);
  }
  return static_cast<int64_t>(u);
}

std::optional<uint64_t> longToUint64(std::string_view p) {
  const size_t len = p.size();
  if (len == 0) return 0;
  if (byteAt(p, len - 1) & 0x80) return std::nullopt;  // negative
  for (size_t k = 8; k < len; ++k)
    if (byteAt(p, k) != 0) return std::nullopt;
  uint64_t u = 0;
  for (size_t k = 0; k < std::min<size_t>(len, 8); ++k) u |= uint64_t{byteAt(p, k)} << (8 * k);
  return u;
}

std::string longToDecimal(std::string_view p, size_t max_digits) {
  if (p.empty()) return "0";
  if (p.size() > 64) return fmt::format("an integer of {} bytes", p.size());
  const bool negative = byteAt(p, p.size() - 1) & 0x80;
  // Magnitude, little-endian: negate the two's complement when negative.
  std::vector<uint8_t> mag(p.begin(), p.end());
  if (negative) {
    unsigned carry = 1;
    for (uint8_t& b : mag) {
      const unsigned v = static_cast<uint8_t>(~b) + carry;
      b = static_cast<uint8_t>(v);
      carry = v >> 8;
    }
  }
  std::string digits;
  while (std::any_of(mag.begin(), mag.end(), [](uint8_t b) { return b != 0; })) {
    unsigned rem = 0;
    for (size_t k = mag.size(); k-- > 0;) {
      const unsigned cur = (rem << 8) | mag[k];
      mag[k] = static_cast<uint8_t>(cur / 10);
      rem = cur % 10;
    }
    digits += static_cast<char>('0' + rem);
  }
  if (digits.empty()) digits.push_back('0');
  std::reverse(digits.begin(), digits.end());
  if (digits.size() > max_digits) digits = digits.substr(0, max_digits) + "...";
  return negative ? "-" + digits : digits;
}

std::optional<std::string> unquoteString(std::string_view line, std::string& why) {
  if (line.size() < 2 || line.front() != line.back() || (line.front() != '\'' && line.front() != '"')) {
    why = "STRING argument is not a quoted string";
    return std::nullopt;
  }
  line = line.substr(1, line.size() - 2);
  std::string out;
  for (size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++k >= line.size()) {
      why = "STRING ends with a lone backslash";
      return std::nullopt;
    }
    const char e = line[k];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\\': case '\'': case '"': out += e; break;
      case 'x': {
        const int hi = k + 1 < line.size() ? hexValue(line[k + 1]) : -1;
        const int lo = k + 2 < line.size() ? hexValue(line[k + 2]) : -1;
        if (hi < 0 || lo < 0) {
          why = "STRING has a bad \\x escape";
          return std::nullopt;
        }
        out += static_cast<char>(hi * 16 + lo);
        k += 2;
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0';
          for (int d = 0; d < 2 && k + 1 < line.size() && line[k + 1] >= '0' && line[k + 1] <= '7'; ++d)
            v = v * 8 + (line[++k] - '0');
          out += static_cast<char>(v & 0xff);
        } else {
          out += '\\';
          out += e;
        }
    }
  }
  return out;
}

std::optional<std::string> decodeRawUnicode(std::string_view line, std::string& why) {
  std::string out;
  for (size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (c == '\\' && k + 1 < line.size() && (line[k + 1] == 'u' || line[k + 1] == 'U')) {
      const size_t digits = line[k + 1] == 'u' ? 4 : 8;
      if (k + 2 + digits > line.size()) {
        why = "UNICODE has a short \\u escape";
        return std::nullopt;
      }
      uint32_t cp = 0;
      for (size_t d = 0; d < digits; ++d) {
        const int h = hexValue(line[k + 2 + d]);
        if (h < 0) {
          why = "UNICODE has a bad \\u escape";
          return std::nullopt;
        }
        cp = cp * 16 + static_cast<uint32_t>(h);
      }
      if (cp > 0x10ffff) {
        why = "UNICODE escape beyond U+10FFFF";
        return std::nullopt;
      }
      appendUtf8(out, cp);
      k += 1 + digits;
    } else {
      appendUtf8(out, static_cast<uint8_t>(c));
    }
  }
  return out;
}

const char* refusedOpcodeName(uint8_t op) {
  switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
  }
}

}  // namespace sawtooth::pickle
