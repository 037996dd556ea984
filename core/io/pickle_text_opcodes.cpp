// Protocol 0's text opcodes (INT, LONG, FLOAT, STRING, UNICODE and the text GET/PUT indices):
// Python 2 and protocol-0 pickles only, so out of the hot parser.

#include "core/io/pickle_parser.h"

namespace sawtooth::pickle {

bool Parser::readLine(std::string_view& line) {
  const void* nl = std::memchr(m_.in + m_.pos, '\n', m_.n - m_.pos);
  if (!nl) return false;
  const size_t end = static_cast<size_t>(static_cast<const unsigned char*>(nl) - m_.in);
  line = doc_.input_.substr(m_.pos, end - m_.pos);
  m_.pos = end + 1;
  return true;
}

bool Parser::textInt(const char* opcode) {
  std::string_view line;
  if (!readLine(line)) return truncated(opcode);
  if (!line.empty() && line.back() == 'L') line.remove_suffix(1);  // Python 2 longs
  if (line == "01" && opcode[0] == 'I') return push(Value::makeInt(Kind::Bool, 1));
  if (line == "00" && opcode[0] == 'I') return push(Value::makeInt(Kind::Bool, 0));
  int64_t v = 0;
  auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
  if (ec == std::errc::result_out_of_range)
    return fail(m_.op_pos, fmt::format("{} '{}' does not fit in 64 bits", opcode, line.substr(0, 40)));
  if (ec != std::errc() || end != line.data() + line.size() || line.empty())
    return fail(m_.op_pos, fmt::format("{} with unreadable text '{}'", opcode, line.substr(0, 40)));
  return push(Value::makeInt(Kind::Int, v));
}

bool Parser::textFloat() {
  std::string_view line;
  if (!readLine(line)) return truncated("FLOAT");
  const std::string text(line.substr(0, 400));
  char* end = nullptr;
  Value v;
  v.kind = Kind::Float;
  v.f = std::strtod(text.c_str(), &end);
  if (text.empty() || line.size() > 400 || end != text.c_str() + text.size())
    return fail(m_.op_pos, fmt::format("FLOAT with unreadable text '{}'", text.substr(0, 40)));
  return push(v);
}

bool Parser::textIndex(uint64_t& k, const char* opcode) {
  std::string_view line;
  if (!readLine(line)) return truncated(opcode);
  auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), k);
  if (ec != std::errc() || end != line.data() + line.size() || line.empty())
    return fail(m_.op_pos, fmt::format("{} with unreadable index '{}'", opcode, line.substr(0, 40)));
  return true;
}

bool Parser::pushOwned(const std::string& s) {
  if (s.size() > limits_.max_string_bytes)
    return fail(m_.op_pos, fmt::format("a string of {} bytes is longer than the string limit ({})", s.size(),
                                     raiseHint("string")));
  if (!budget_.take(s.size())) return outOfMemory("the pickle's text strings");
  Value v;
  v.kind = Kind::Str;
  v.owned = true;
  v.off = doc_.pool_.size();
  v.len = static_cast<uint32_t>(s.size());
  doc_.pool_ += s;
  return push(v);
}

bool Parser::textString() {
  std::string_view line;
  if (!readLine(line)) return truncated("STRING");
  std::string why;
  auto text = unquoteString(line, why);
  if (!text) return fail(m_.op_pos, why);
  return pushOwned(*text);
}

bool Parser::textUnicode() {
  std::string_view line;
  if (!readLine(line)) return truncated("UNICODE");
  std::string why;
  auto text = decodeRawUnicode(line, why);
  if (!text) return fail(m_.op_pos, why);
  return pushOwned(*text);
}

}  // namespace sawtooth::pickle
