#include "core/io/pickle_document.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace sawtooth::pickle {

std::string_view kindName(Kind kind) {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::BigInt: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Set: return "set";
  }
  return "?";
}

void ItemArena::Release::operator()(Value* p) const { ::operator delete(p); }

namespace {
constexpr size_t kMaxBlockItems = size_t{1} << 20;  // 16 MiB
constexpr size_t kOwnBlockItems = kMaxBlockItems / 4;
}  // namespace

Value* ItemArena::allocate(size_t count) {
  if (count >= kOwnBlockItems) {
    // Large: a block of its own (released when the container moves on), leaving the current
    // block's room for what follows.
    large_.emplace_back(static_cast<Value*>(::operator new(count * sizeof(Value))));
    return large_.back().get();
  }
  if (static_cast<size_t>(limit_ - cursor_) < count) {
    const size_t items = std::max(next_block_items_, count);
    blocks_.emplace_back(static_cast<Value*>(::operator new(items * sizeof(Value))));
    cursor_ = blocks_.back().get();
    limit_ = cursor_ + items;
    next_block_items_ = std::min(next_block_items_ * 2, kMaxBlockItems);
  }
  Value* out = cursor_;
  cursor_ += count;
  return out;
}

bool ItemArena::extend(const Value* end, size_t count) {
  if (end != cursor_ || static_cast<size_t>(limit_ - cursor_) < count) return false;
  cursor_ += count;
  return true;
}

void ItemArena::release(const Value* data) {
  // Storage inside a shared block is reclaimed with the document.
  for (auto& block : large_) {
    if (block.get() != data) continue;
    std::swap(block, large_.back());
    large_.pop_back();
    return;
  }
}

const Value* Document::get(const Value& dict, std::string_view key) const {
  if (dict.kind != Kind::Dict) return nullptr;
  auto kv = items(dict);
  for (size_t i = 0; i + 1 < kv.size(); i += 2)
    if (kv[i].kind == Kind::Str && str(kv[i]) == key) return &kv[i + 1];
  return nullptr;
}

namespace {

// The opcodes that build objects by importing or calling Python code. Refused, always.
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

// Memo keys are dense in every pickle Python writes; a key far past the end is refused rather
// than letting a hostile file make us allocate gigabytes.
constexpr uint64_t kMaxMemoGap = 1u << 20;

// Marks memo slots that were never stored; never a kind of a value in the document.
constexpr auto kUnset = static_cast<Kind>(0xff);

}  // namespace

// Every opcode handler returns true to go on, or false after fail() recorded the error: the hot
// loop carries a bool, not a Result.
class Parser {
 public:
  Parser(Document& doc, Progress* progress) : doc_(doc), in_(doc.input_), progress_(progress) {
    // Python memoizes nearly every container, each written in a few dozen bytes or more. Room
    // for that many up front saves the copies (and page faults) of growing by doubling to
    // millions; pages never touched cost nothing.
    const size_t expected = in_.size() / 64;
    doc_.containers_.reserve(expected);
    memo_.reserve(expected);
  }

  Status run() {
    const size_t n = in_.size();
    uint32_t tick = 0;
    while (!stopped_) {
      if (pos_ >= n) {
        fail(n, fmt::format("the file ends without a STOP opcode (truncated after {} bytes?)", n));
        break;
      }
      op_pos_ = pos_;
      const uint8_t op = static_cast<uint8_t>(in_[pos_++]);
      if (++tick == 65536) {
        tick = 0;
        if (progress_) {
          if (progress_->cancelled()) return Error{"cancelled"};
          progress_->report(pos_, n);
        }
      }
      if (!step(op)) break;
    }
    if (!error_.empty()) return Error{std::move(error_)};
    return Ok{};
  }

 private:
  bool step(uint8_t op) {
    switch (op) {
      case 0x80: {  // PROTO
        uint8_t proto;
        if (!readByte(proto)) return truncated("PROTO");
        if (proto > 5) return fail(op_pos_, fmt::format("pickle protocol {} is newer than 5", proto));
        return true;
      }
      case 0x95: {  // FRAME: an 8-byte length hint, nothing to build
        uint64_t len;
        if (!readLE(len, 8)) return truncated("FRAME");
        return true;
      }
      case '.':  // STOP
        if (stack_.empty()) return fail(op_pos_, "STOP with an empty stack");
        doc_.root_ = stack_.back();
        stopped_ = true;
        return true;

      // --- constants
      case 'N': return push(Value{});
      case 0x88: return push(makeInt(Kind::Bool, 1));
      case 0x89: return push(makeInt(Kind::Bool, 0));

      // --- integers
      case 'J': {  // BININT
        uint64_t v;
        if (!readLE(v, 4)) return truncated("BININT");
        return push(makeInt(Kind::Int, static_cast<int32_t>(static_cast<uint32_t>(v))));
      }
      case 'K': {  // BININT1
        uint8_t v;
        if (!readByte(v)) return truncated("BININT1");
        return push(makeInt(Kind::Int, v));
      }
      case 'M': {  // BININT2
        uint64_t v;
        if (!readLE(v, 2)) return truncated("BININT2");
        return push(makeInt(Kind::Int, static_cast<int64_t>(v)));
      }
      case 0x8a: {  // LONG1
        uint8_t len;
        if (!readByte(len)) return truncated("LONG1");
        return pushLong(len, "LONG1");
      }
      case 0x8b: {  // LONG4
        uint64_t len;
        if (!readLE(len, 4)) return truncated("LONG4");
        if (static_cast<int32_t>(len) < 0) return fail(op_pos_, "LONG4 with a negative length");
        return pushLong(len, "LONG4");
      }
      case 'I': return textInt("INT");
      case 'L': return textInt("LONG");

      // --- floats
      case 'G': {  // BINFLOAT, big-endian
        if (remaining() < 8) return truncated("BINFLOAT");
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<uint8_t>(in_[pos_ + k]);
        pos_ += 8;
        Value v;
        v.kind = Kind::Float;
        v.f = std::bit_cast<double>(bits);
        return push(v);
      }
      case 'F': {  // FLOAT, text
        std::string_view line;
        if (!readLine(line)) return truncated("FLOAT");
        Value v;
        v.kind = Kind::Float;
        std::string text(line);
        char* end = nullptr;
        v.f = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
          return fail(op_pos_, fmt::format("FLOAT with unreadable text '{}'", text.substr(0, 40)));
        return push(v);
      }

      // --- strings and bytes
      case 0x8c: return lengthPrefixed(Kind::Str, 1, "SHORT_BINUNICODE");
      case 'X': return lengthPrefixed(Kind::Str, 4, "BINUNICODE");
      case 0x8d: return lengthPrefixed(Kind::Str, 8, "BINUNICODE8");
      case 'U': return lengthPrefixed(Kind::Str, 1, "SHORT_BINSTRING");
      case 'T': return lengthPrefixed(Kind::Str, 4, "BINSTRING");
      case 'C': return lengthPrefixed(Kind::Bytes, 1, "SHORT_BINBYTES");
      case 'B': return lengthPrefixed(Kind::Bytes, 4, "BINBYTES");
      case 0x8e: return lengthPrefixed(Kind::Bytes, 8, "BINBYTES8");
      case 0x96: return lengthPrefixed(Kind::Bytes, 8, "BYTEARRAY8");
      case 'S': return textString();
      case 'V': return textUnicode();

      // --- containers
      case '}': return push(makeContainer(Kind::Dict));
      case ']': return push(makeContainer(Kind::List));
      case ')': return push(makeContainer(Kind::Tuple));
      case 0x8f: return push(makeContainer(Kind::Set));
      case '(':  // MARK
        marks_.push_back(stack_.size());
        return true;
      case 'd': return fromMark(Kind::Dict, "DICT");
      case 'l': return fromMark(Kind::List, "LIST");
      case 't': return fromMark(Kind::Tuple, "TUPLE");
      case 0x91: return fromMark(Kind::Set, "FROZENSET");
      case 0x85: return tupleOf(1, "TUPLE1");
      case 0x86: return tupleOf(2, "TUPLE2");
      case 0x87: return tupleOf(3, "TUPLE3");
      case 'a': {  // APPEND
        if (stack_.size() < 2 + markFloor()) return fail(op_pos_, "APPEND needs a list and a value on the stack");
        const Value item = stack_.back();
        stack_.pop_back();
        return addTo(stack_.back(), Kind::List, &item, 1, "APPEND");
      }
      case 'e': return addFromMark(Kind::List, "APPENDS");
      case 0x90: return addFromMark(Kind::Set, "ADDITEMS");
      case 's': {  // SETITEM
        if (stack_.size() < 3 + markFloor()) return fail(op_pos_, "SETITEM needs a dict, a key and a value");
        const Value kv[2] = {stack_[stack_.size() - 2], stack_.back()};
        stack_.resize(stack_.size() - 2);
        return addTo(stack_.back(), Kind::Dict, kv, 2, "SETITEM");
      }
      case 'u': {  // SETITEMS
        size_t mark;
        if (!popMark(mark)) return fail(op_pos_, "SETITEMS without a MARK");
        if ((stack_.size() - mark) % 2 != 0) return fail(op_pos_, "SETITEMS with an odd number of items");
        if (mark == 0 || mark <= markFloor()) return fail(op_pos_, "SETITEMS with no dict below its MARK");
        const bool ok = addTo(stack_[mark - 1], Kind::Dict, stack_.data() + mark, stack_.size() - mark, "SETITEMS");
        stack_.resize(mark);
        return ok;
      }

      // --- stack manipulation
      case '0':  // POP
        if (stack_.size() <= markFloor()) {
          // Python pops the topmost mark when the stack above it is empty.
          if (marks_.empty() || marks_.back() != stack_.size()) return fail(op_pos_, "POP on an empty stack");
          marks_.pop_back();
          return true;
        }
        stack_.pop_back();
        return true;
      case '1': {  // POP_MARK
        size_t mark;
        if (!popMark(mark)) return fail(op_pos_, "POP_MARK without a MARK");
        stack_.resize(mark);
        return true;
      }
      case '2':  // DUP
        if (stack_.size() <= markFloor()) return fail(op_pos_, "DUP on an empty stack");
        return push(Value(stack_.back()));

      // --- memo
      case 0x94:  // MEMOIZE: the key is the number of entries stored so far
        return memoPut(memo_count_, "MEMOIZE");
      case 'q': {  // BINPUT
        uint8_t k;
        if (!readByte(k)) return truncated("BINPUT");
        return memoPut(k, "BINPUT");
      }
      case 'r': {  // LONG_BINPUT
        uint64_t k;
        if (!readLE(k, 4)) return truncated("LONG_BINPUT");
        return memoPut(k, "LONG_BINPUT");
      }
      case 'p': {  // PUT
        uint64_t k;
        if (!textIndex(k, "PUT")) return false;
        return memoPut(k, "PUT");
      }
      case 'h': {  // BINGET
        uint8_t k;
        if (!readByte(k)) return truncated("BINGET");
        return memoGet(k, "BINGET");
      }
      case 'j': {  // LONG_BINGET
        uint64_t k;
        if (!readLE(k, 4)) return truncated("LONG_BINGET");
        return memoGet(k, "LONG_BINGET");
      }
      case 'g': {  // GET
        uint64_t k;
        if (!textIndex(k, "GET")) return false;
        return memoGet(k, "GET");
      }

      default:
        if (const char* refused = refusedOpcodeName(op))
          return fail(op_pos_, fmt::format("opcode {} (0x{:02x}) would import or call Python code; Sawtooth reads "
                                           "data-only pickles and refuses it",
                                           refused, op));
        return fail(op_pos_, fmt::format("unknown opcode 0x{:02x} (not a pickle, or corrupted)", op));
    }
  }

  // ---- helpers
  bool fail(size_t at, const std::string& what) {
    error_ = fmt::format("byte {}: {}", at, what);
    return false;
  }
  bool truncated(const char* opcode) { return fail(op_pos_, fmt::format("the file ends inside {} (truncated?)", opcode)); }
  size_t remaining() const { return in_.size() - pos_; }
  size_t markFloor() const { return marks_.empty() ? 0 : marks_.back(); }

  bool readByte(uint8_t& out) {
    if (pos_ >= in_.size()) return false;
    out = static_cast<uint8_t>(in_[pos_++]);
    return true;
  }
  bool readLE(uint64_t& out, int bytes) {
    if (remaining() < static_cast<size_t>(bytes)) return false;
    out = 0;
    for (int k = bytes - 1; k >= 0; --k) out = (out << 8) | static_cast<uint8_t>(in_[pos_ + k]);
    pos_ += bytes;
    return true;
  }
  bool readLine(std::string_view& line) {
    size_t nl = in_.find('\n', pos_);
    if (nl == std::string::npos) return false;
    line = std::string_view(in_).substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return true;
  }
  bool popMark(size_t& mark) {
    if (marks_.empty()) return false;
    mark = marks_.back();
    marks_.pop_back();
    return true;
  }

  bool push(Value v) {
    stack_.push_back(v);
    return true;
  }
  static Value makeInt(Kind kind, int64_t i) {
    Value v;
    v.kind = kind;
    v.i = i;
    return v;
  }
  Value makeContainer(Kind kind) {
    Value v;
    v.kind = kind;
    v.container = static_cast<uint32_t>(doc_.containers_.size());
    doc_.containers_.emplace_back();
    return v;
  }

  bool pushLong(uint64_t len, const char* opcode) {
    if (remaining() < len) return truncated(opcode);
    const char* p = in_.data() + pos_;
    if (len == 0) {
      pos_ += len;
      return push(makeInt(Kind::Int, 0));
    }
    // Two's complement, little-endian. Fits in int64 when every byte past the 8th is sign fill.
    const bool negative = static_cast<uint8_t>(p[len - 1]) & 0x80;
    bool fits = true;
    for (uint64_t k = 8; k < len; ++k)
      if (static_cast<uint8_t>(p[k]) != (negative ? 0xff : 0x00)) fits = false;
    if (fits && len >= 8) {
      const bool top_negative = static_cast<uint8_t>(p[7]) & 0x80;
      if (top_negative != negative) fits = false;
    }
    if (fits) {
      uint64_t u = negative ? ~uint64_t{0} : 0;
      const uint64_t n = len < 8 ? len : 8;
      for (uint64_t k = 0; k < n; ++k) {
        u &= ~(uint64_t{0xff} << (8 * k));
        u |= uint64_t{static_cast<uint8_t>(p[k])} << (8 * k);
      }
      pos_ += len;
      return push(makeInt(Kind::Int, static_cast<int64_t>(u)));
    }
    if (len > std::numeric_limits<uint32_t>::max()) return fail(op_pos_, fmt::format("{} of {} bytes is too long", opcode, len));
    Value v;
    v.kind = Kind::BigInt;
    v.off = pos_;
    v.len = static_cast<uint32_t>(len);
    pos_ += len;
    return push(v);
  }

  bool textInt(const char* opcode) {
    std::string_view line;
    if (!readLine(line)) return truncated(opcode);
    if (!line.empty() && line.back() == 'L') line.remove_suffix(1);  // Python 2 longs
    if (line == "01" && opcode[0] == 'I') return push(makeInt(Kind::Bool, 1));
    if (line == "00" && opcode[0] == 'I') return push(makeInt(Kind::Bool, 0));
    int64_t v = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec == std::errc::result_out_of_range)
      return fail(op_pos_, fmt::format("{} '{}' does not fit in 64 bits", opcode, line.substr(0, 40)));
    if (ec != std::errc() || end != line.data() + line.size() || line.empty())
      return fail(op_pos_, fmt::format("{} with unreadable text '{}'", opcode, line.substr(0, 40)));
    return push(makeInt(Kind::Int, v));
  }

  bool textIndex(uint64_t& k, const char* opcode) {
    std::string_view line;
    if (!readLine(line)) return truncated(opcode);
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), k);
    if (ec != std::errc() || end != line.data() + line.size() || line.empty())
      return fail(op_pos_, fmt::format("{} with unreadable index '{}'", opcode, line.substr(0, 40)));
    return true;
  }

  bool lengthPrefixed(Kind kind, int len_bytes, const char* opcode) {
    uint64_t len;
    if (!readLE(len, len_bytes)) return truncated(opcode);
    if (remaining() < len)
      return fail(op_pos_, fmt::format("{} says {} bytes follow but only {} remain (truncated?)", opcode, len, remaining()));
    if (len > std::numeric_limits<uint32_t>::max()) return fail(op_pos_, fmt::format("{} of {} bytes is too long", opcode, len));
    Value v;
    v.kind = kind;
    v.off = pos_;
    v.len = static_cast<uint32_t>(len);
    pos_ += len;
    return push(v);
  }

  Value ownedString(const std::string& s, Kind kind) {
    Value v;
    v.kind = kind;
    v.owned = true;
    v.off = doc_.pool_.size();
    v.len = static_cast<uint32_t>(s.size());
    doc_.pool_ += s;
    return v;
  }

  static void appendUtf8(std::string& out, uint32_t cp) {
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

  static int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // STRING: a Python 2 repr, quoted, with backslash escapes.
  bool textString() {
    std::string_view line;
    if (!readLine(line)) return truncated("STRING");
    if (line.size() < 2 || line.front() != line.back() || (line.front() != '\'' && line.front() != '"'))
      return fail(op_pos_, "STRING argument is not a quoted string");
    line = line.substr(1, line.size() - 2);
    std::string out;
    for (size_t k = 0; k < line.size(); ++k) {
      char c = line[k];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (++k >= line.size()) return fail(op_pos_, "STRING ends with a lone backslash");
      char e = line[k];
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
          int hi = k + 1 < line.size() ? hexValue(line[k + 1]) : -1;
          int lo = k + 2 < line.size() ? hexValue(line[k + 2]) : -1;
          if (hi < 0 || lo < 0) return fail(op_pos_, "STRING has a bad \\x escape");
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
    return push(ownedString(out, Kind::Str));
  }

  // UNICODE: raw-unicode-escape; bytes are Latin-1 except \uXXXX and \UXXXXXXXX.
  bool textUnicode() {
    std::string_view line;
    if (!readLine(line)) return truncated("UNICODE");
    std::string out;
    for (size_t k = 0; k < line.size(); ++k) {
      const char c = line[k];
      if (c == '\\' && k + 1 < line.size() && (line[k + 1] == 'u' || line[k + 1] == 'U')) {
        const size_t digits = line[k + 1] == 'u' ? 4 : 8;
        if (k + 2 + digits > line.size()) return fail(op_pos_, "UNICODE has a short \\u escape");
        uint32_t cp = 0;
        for (size_t d = 0; d < digits; ++d) {
          int h = hexValue(line[k + 2 + d]);
          if (h < 0) return fail(op_pos_, "UNICODE has a bad \\u escape");
          cp = cp * 16 + static_cast<uint32_t>(h);
        }
        if (cp > 0x10ffff) return fail(op_pos_, "UNICODE escape beyond U+10FFFF");
        appendUtf8(out, cp);
        k += 1 + digits;
      } else {
        appendUtf8(out, static_cast<uint8_t>(c));
      }
    }
    return push(ownedString(out, Kind::Str));
  }

  // A new container holding the `count` values on top of the stack, which it replaces.
  bool collect(Kind kind, size_t count) {
    if (count > std::numeric_limits<uint32_t>::max()) return fail(op_pos_, "a container with over 4 G items");
    Value v = makeContainer(kind);
    Document::Container& c = doc_.containers_.back();
    c.data = doc_.arena_.allocate(count);
    c.size = c.capacity = static_cast<uint32_t>(count);
    std::copy(stack_.end() - static_cast<ptrdiff_t>(count), stack_.end(), c.data);
    stack_.resize(stack_.size() - count);
    return push(v);
  }

  bool fromMark(Kind kind, const char* opcode) {
    size_t mark;
    if (!popMark(mark)) return fail(op_pos_, fmt::format("{} without a MARK", opcode));
    const size_t count = stack_.size() - mark;
    if (kind == Kind::Dict && count % 2 != 0) return fail(op_pos_, "DICT with an odd number of items");
    return collect(kind, count);
  }

  bool tupleOf(size_t count, const char* opcode) {
    if (stack_.size() < count + markFloor()) return fail(op_pos_, fmt::format("{} needs {} values on the stack", opcode, count));
    return collect(Kind::Tuple, count);
  }

  // Appends to a container. A container usually receives all its items at once (one SETITEMS),
  // which then fill exactly the room taken for them; one that keeps growing (a long list, in
  // batches of 1000) moves to twice its size when full.
  bool addTo(const Value& target, Kind want, const Value* values, size_t count, const char* opcode) {
    if (target.kind != want)
      return fail(op_pos_, fmt::format("{} onto a {} (expected a {})", opcode, kindName(target.kind), kindName(want)));
    Document::Container& c = doc_.containers_[target.container];
    const size_t size = c.size + count;
    if (size > std::numeric_limits<uint32_t>::max()) return fail(op_pos_, "a container with over 4 G items");
    if (size > c.capacity) {
      if (c.data && doc_.arena_.extend(c.data + c.capacity, size - c.capacity)) {
        c.capacity = static_cast<uint32_t>(size);
      } else {
        const size_t capacity = c.size == 0 ? size : std::min<size_t>(std::max(size, size_t{2} * c.capacity), UINT32_MAX);
        Value* data = doc_.arena_.allocate(capacity);
        std::copy(c.data, c.data + c.size, data);
        if (c.data) doc_.arena_.release(c.data);
        c.data = data;
        c.capacity = static_cast<uint32_t>(capacity);
      }
    }
    std::copy(values, values + count, c.data + c.size);
    c.size = static_cast<uint32_t>(size);
    return true;
  }

  bool addFromMark(Kind want, const char* opcode) {
    size_t mark;
    if (!popMark(mark)) return fail(op_pos_, fmt::format("{} without a MARK", opcode));
    if (mark == 0 || mark <= markFloor()) return fail(op_pos_, fmt::format("{} with nothing below its MARK", opcode));
    const bool ok = addTo(stack_[mark - 1], want, stack_.data() + mark, stack_.size() - mark, opcode);
    stack_.resize(mark);
    return ok;
  }

  bool memoPut(uint64_t key, const char* opcode) {
    if (stack_.size() <= markFloor()) return fail(op_pos_, fmt::format("{} on an empty stack", opcode));
    if (key >= memo_.size()) {
      if (key - memo_.size() > kMaxMemoGap)
        return fail(op_pos_, fmt::format("{} index {} is far past the memo's end ({})", opcode, key, memo_.size()));
      Value unset;
      unset.kind = kUnset;
      memo_.resize(key + 1, unset);
    }
    if (memo_[key].kind == kUnset) ++memo_count_;
    memo_[key] = stack_.back();
    return true;
  }

  bool memoGet(uint64_t key, const char* opcode) {
    if (key >= memo_.size() || memo_[key].kind == kUnset)
      return fail(op_pos_, fmt::format("{} of memo entry {} that was never stored", opcode, key));
    return push(memo_[key]);
  }

  Document& doc_;
  const std::string_view in_;
  Progress* progress_;
  size_t pos_ = 0;
  size_t op_pos_ = 0;
  bool stopped_ = false;
  std::string error_;
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  std::vector<Value> memo_;
  uint64_t memo_count_ = 0;
};

Result<Document> parse(std::string bytes, Progress* progress) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  const std::string_view view = *owner;
  return parse(std::move(owner), view, progress);
}

Result<Document> parse(std::shared_ptr<const void> owner, std::string_view bytes, Progress* progress) {
  Document doc;
  doc.owner_ = std::move(owner);
  doc.input_ = bytes;
  Parser parser(doc, progress);
  Status st = parser.run();
  if (!st) return st.error();
  if (progress) progress->report(1, 1);
  return doc;
}

}  // namespace sawtooth::pickle
