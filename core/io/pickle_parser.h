#pragma once
// The pickle machine that builds a Document (pickle_document.h), for the files that implement it:
// pickle_document.cpp (the opcodes a snapshot is made of, and the rest of protocols 1-5) and
// pickle_text_opcodes.cpp (protocol 0's text opcodes). Not part of the library's interface.

#include <bit>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/io/pickle_document.h"
#include "core/io/pickle_machine.h"
#include "core/io/pickle_scalars.h"

namespace sawtooth::pickle {

// "list", "dict", ... for messages (pickle_document.cpp).
std::string_view kindName(Kind kind);

// Every opcode handler returns true to go on, or false after fail() recorded the error: the hot
// loop carries a bool, not a Result.
class Parser {
 public:
  Parser(Document& doc, const ParseOptions& options, ReadBudget& budget)
      : doc_(doc),
        progress_(options.progress),
        shapes_(options.shapes),
        consumed_(options.consumed),
        budget_(budget),
        limits_(budget.limits()) {
    m_.in = reinterpret_cast<const unsigned char*>(doc.input_.data());
    m_.n = doc.input_.size();
    m_.budget = &budget;
    // Python memoizes nearly every container and string, each written in a few dozen bytes or
    // more: room for that many up front saves the copies of growing by doubling to millions.
    m_.memo.reserve(std::min<size_t>(m_.n / 48, size_t{1} << 28), budget);
  }

  Status run() {
    // Progress, cancel and the deadline are checked every 256 KB of input (a reader reading
    // ahead may take many opcodes at once; every opcode takes at least a byte).
    size_t next_check = 0;
    while (!stopped_) {
      if (m_.pos >= m_.n) {
        fail(m_.n, fmt::format("the file ends without a STOP opcode (truncated after {} bytes?)", m_.n));
        break;
      }
      m_.op_pos = m_.pos;
      const uint8_t op = m_.in[m_.pos++];
      if (m_.pos >= next_check) {
        next_check = m_.pos + (256 << 10);
        if (progress_) {
          if (progress_->cancelled()) return Error{"cancelled"};
          progress_->report(m_.pos, m_.n);
        }
        if (budget_.pastDeadline()) return budget_.timeError();
        if (consumed_) consumed_(m_.pos);
      }
      if (!hotStep(op)) break;
    }
    if (!error_.empty()) return Error{std::move(error_)};
    return Ok{};
  }

  // The opcodes a snapshot is made of, handled here with their helpers inlined; the rest in step().
  [[gnu::always_inline]] inline bool hotStep(uint8_t op) {
    switch (op) {
      case 'h':  // BINGET
        if (m_.pos >= m_.n) return truncated("BINGET");
        return memoGet(m_.in[m_.pos++], "BINGET");
      case 'j':  // LONG_BINGET
        if (m_.n - m_.pos < 4) return truncated("LONG_BINGET");
        m_.pos += 4;
        return memoGet(load32(m_.in + m_.pos - 4), "LONG_BINGET");
      case 0x94:  // MEMOIZE
        return memoPut(m_.memo.count(), "MEMOIZE");
      case 'K':  // BININT1
        if (m_.pos >= m_.n) return truncated("BININT1");
        return push(Value::makeInt(Kind::Int, m_.in[m_.pos++]));
      case 'M':  // BININT2
        if (m_.n - m_.pos < 2) return truncated("BININT2");
        m_.pos += 2;
        return push(Value::makeInt(Kind::Int, m_.in[m_.pos - 2] | m_.in[m_.pos - 1] << 8));
      case 'J':  // BININT
        if (m_.n - m_.pos < 4) return truncated("BININT");
        m_.pos += 4;
        return push(Value::makeInt(Kind::Int, static_cast<int32_t>(static_cast<uint32_t>(load32(m_.in + m_.pos - 4)))));
      case 0x8a: {  // LONG1
        if (m_.pos >= m_.n) return truncated("LONG1");
        const size_t len = m_.in[m_.pos];
        if (len >= 1 && len <= 8 && m_.n - m_.pos >= 9) {
          // Sign-extend the len bytes that follow: load 8, shift the rest out.
          uint64_t raw;
          std::memcpy(&raw, m_.in + m_.pos + 1, 8);
          const unsigned shift = static_cast<unsigned>(64 - 8 * len);
          m_.pos += 1 + len;
          return push(Value::makeInt(Kind::Int, static_cast<int64_t>(raw << shift) >> shift));
        }
        ++m_.pos;
        return pushLong(len, "LONG1");
      }
      case 0x8c: {  // SHORT_BINUNICODE
        if (m_.pos >= m_.n) return truncated("SHORT_BINUNICODE");
        const size_t len = m_.in[m_.pos++];
        if (m_.n - m_.pos < len)
          return fail(m_.op_pos, fmt::format("SHORT_BINUNICODE says {} bytes follow but only {} remain (truncated?)", len,
                                           remaining()));
        Value v;
        v.kind = Kind::Str;
        v.off = m_.pos;
        v.len = static_cast<uint32_t>(len);
        m_.pos += len;
        return push(v);
      }
      case 'q':  // BINPUT
        if (m_.pos >= m_.n) return truncated("BINPUT");
        return memoPut(m_.in[m_.pos++], "BINPUT");
      case 'r':  // LONG_BINPUT
        if (m_.n - m_.pos < 4) return truncated("LONG_BINPUT");
        m_.pos += 4;
        return memoPut(load32(m_.in + m_.pos - 4), "LONG_BINPUT");
      case '(':  // MARK
        if (m_.marks.size() >= limits_.max_depth)
          return fail(m_.op_pos, fmt::format("more than {} nested MARKs (the depth limit; {})", limits_.max_depth,
                                           raiseHint("depth")));
        if (m_.marks.size() == m_.marks.capacity() && !charge(m_.marks, "the pickle's nesting")) return false;
        m_.marks.push_back(m_.stack.size());
        return true;
      case '}': return pushEmpty(Kind::Dict);
      case ']': return pushEmpty(Kind::List);
      case 'u': return setItems();
      case 'e': return addFromMark(Kind::List, "APPENDS");
      case 'N': return push(Value{});
      default: return step(op);
    }
  }

 private:
  // Protocol 0's text opcodes (pickle_text_opcodes.cpp): rare, so out of line.
  bool readLine(std::string_view& line);
  bool textInt(const char* opcode);
  bool textFloat();
  bool textIndex(uint64_t& k, const char* opcode);
  bool pushOwned(const std::string& s);
  // STRING: a Python 2 repr, quoted, with backslash escapes.
  bool textString();
  // UNICODE: raw-unicode-escape; bytes are Latin-1 except \uXXXX and \UXXXXXXXX.
  bool textUnicode();
  bool step(uint8_t op) {
    switch (op) {
      case 0x80: {  // PROTO
        uint8_t proto;
        if (!readByte(proto)) return truncated("PROTO");
        if (proto > 5) return fail(m_.op_pos, fmt::format("pickle protocol {} is newer than 5", proto));
        return true;
      }
      case 0x95: {  // FRAME: an 8-byte length hint, nothing to build
        uint64_t len;
        if (!readLE(len, 8)) return truncated("FRAME");
        return true;
      }
      case '.':  // STOP
        if (m_.stack.empty()) return fail(m_.op_pos, "STOP with an empty stack");
        doc_.root_ = m_.stack.back();
        stopped_ = true;
        return true;

      // --- constants
      case 'N': return push(Value{});
      case 0x88: return push(Value::makeInt(Kind::Bool, 1));
      case 0x89: return push(Value::makeInt(Kind::Bool, 0));

      // --- integers
      case 'J': {  // BININT
        uint64_t v;
        if (!readLE(v, 4)) return truncated("BININT");
        return push(Value::makeInt(Kind::Int, static_cast<int32_t>(static_cast<uint32_t>(v))));
      }
      case 'K': {  // BININT1
        uint8_t v;
        if (!readByte(v)) return truncated("BININT1");
        return push(Value::makeInt(Kind::Int, v));
      }
      case 'M': {  // BININT2
        uint64_t v;
        if (!readLE(v, 2)) return truncated("BININT2");
        return push(Value::makeInt(Kind::Int, static_cast<int64_t>(v)));
      }
      case 0x8a: {  // LONG1
        uint8_t len;
        if (!readByte(len)) return truncated("LONG1");
        return pushLong(len, "LONG1");
      }
      case 0x8b: {  // LONG4
        uint64_t len;
        if (!readLE(len, 4)) return truncated("LONG4");
        if (static_cast<int32_t>(len) < 0) return fail(m_.op_pos, "LONG4 with a negative length");
        return pushLong(len, "LONG4");
      }
      case 'I': return textInt("INT");
      case 'L': return textInt("LONG");

      // --- floats
      case 'G': {  // BINFLOAT, big-endian
        if (remaining() < 8) return truncated("BINFLOAT");
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | m_.in[m_.pos + k];
        m_.pos += 8;
        Value v;
        v.kind = Kind::Float;
        v.f = std::bit_cast<double>(bits);
        return push(v);
      }
      case 'F': return textFloat();

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
      case '}': return pushEmpty(Kind::Dict);
      case ']': return pushEmpty(Kind::List);
      case ')': return pushContainer(Kind::Tuple);
      case 0x8f: return pushContainer(Kind::Set);
      case '(':  // MARK
        if (m_.marks.size() >= limits_.max_depth)
          return fail(m_.op_pos, fmt::format("more than {} nested MARKs (the depth limit; {})", limits_.max_depth,
                                           raiseHint("depth")));
        if (m_.marks.size() == m_.marks.capacity() && !charge(m_.marks, "the pickle's nesting")) return false;
        m_.marks.push_back(m_.stack.size());
        return true;
      case 'd': return fromMark(Kind::Dict, "DICT");
      case 'l': return fromMark(Kind::List, "LIST");
      case 't': return fromMark(Kind::Tuple, "TUPLE");
      case 0x91: return fromMark(Kind::Set, "FROZENSET");
      case 0x85: return tupleOf(1, "TUPLE1");
      case 0x86: return tupleOf(2, "TUPLE2");
      case 0x87: return tupleOf(3, "TUPLE3");
      case 'a': {  // APPEND
        if (m_.stack.size() < 2 + markFloor()) return fail(m_.op_pos, "APPEND needs a list and a value on the stack");
        const bool ok = addTo(m_.stack[m_.stack.size() - 2], Kind::List, &m_.stack.back(), 1, "APPEND");
        m_.stack.pop_back();
        return ok;
      }
      case 'e': return addFromMark(Kind::List, "APPENDS");
      case 0x90: return addFromMark(Kind::Set, "ADDITEMS");
      case 's': {  // SETITEM
        if (m_.stack.size() < 3 + markFloor()) return fail(m_.op_pos, "SETITEM needs a dict, a key and a value");
        const bool ok = addTo(m_.stack[m_.stack.size() - 3], Kind::Dict, &m_.stack[m_.stack.size() - 2], 2, "SETITEM");
        m_.stack.resize(m_.stack.size() - 2);
        return ok;
      }
      case 'u': return setItems();

      // --- stack manipulation
      case '0':  // POP
        if (m_.stack.size() <= markFloor()) {
          // Python pops the topmost mark when the stack above it is empty.
          if (m_.marks.empty() || m_.marks.back() != m_.stack.size()) return fail(m_.op_pos, "POP on an empty stack");
          m_.marks.pop_back();
          return true;
        }
        m_.stack.pop_back();
        return true;
      case '1': {  // POP_MARK
        size_t mark;
        if (!popMark(mark)) return fail(m_.op_pos, "POP_MARK without a MARK");
        m_.stack.resize(mark);
        return true;
      }
      case '2':  // DUP
        if (m_.stack.size() <= markFloor()) return fail(m_.op_pos, "DUP on an empty stack");
        return push(Value(m_.stack.back()));

      // --- memo
      case 0x94:  // MEMOIZE: the key is the number of entries stored so far
        return memoPut(m_.memo.count(), "MEMOIZE");
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
          return fail(m_.op_pos, fmt::format("opcode {} (0x{:02x}) would import or call Python code; Sawtooth reads "
                                           "data-only pickles and refuses it",
                                           refused, op));
        return fail(m_.op_pos, fmt::format("unknown opcode 0x{:02x} (not a pickle, or corrupted)", op));
    }
  }

  // ---- helpers
  bool fail(size_t at, const std::string& what) {
    error_ = fmt::format("byte {}: {}", at, what);
    return false;
  }
  bool truncated(const char* opcode) { return fail(m_.op_pos, fmt::format("the file ends inside {} (truncated?)", opcode)); }
  bool outOfMemory(std::string_view what) { return fail(m_.op_pos, budget_.memoryError(what).message); }
  size_t remaining() const { return m_.n - m_.pos; }
  size_t markFloor() const { return m_.markFloor(); }

  // Doubles a vector's capacity, counting the new bytes against the budget.
  template <typename V>
  bool charge(V& v, std::string_view what) {
    const size_t grow = std::max<size_t>(v.capacity(), 64);
    if (!budget_.take(grow * sizeof(v[0]))) return outOfMemory(what);
    v.reserve(v.capacity() + grow);
    return true;
  }

  bool readByte(uint8_t& out) {
    if (m_.pos >= m_.n) return false;
    out = m_.in[m_.pos++];
    return true;
  }
  bool readLE(uint64_t& out, int bytes) {
    if (remaining() < static_cast<size_t>(bytes)) return false;
    out = 0;
    for (int k = bytes - 1; k >= 0; --k) out = (out << 8) | m_.in[m_.pos + k];
    m_.pos += bytes;
    return true;
  }
  bool popMark(size_t& mark) {
    if (m_.marks.empty()) return false;
    mark = m_.marks.back();
    m_.marks.pop_back();
    return true;
  }

  [[gnu::always_inline]] inline bool push(const Value& v) {
    if (!m_.stack.push(v, budget_)) return outOfMemory("the pickle's value stack");
    return true;
  }
  bool newContainer(Kind kind, Value& out) {
    if (doc_.containers_.size() == doc_.containers_.capacity() && !charge(doc_.containers_, "the pickle's containers"))
      return false;
    if (doc_.containers_.size() >= std::numeric_limits<uint32_t>::max())
      return fail(m_.op_pos, "more than 4 G containers");
    out.kind = kind;
    out.container = static_cast<uint32_t>(doc_.containers_.size());
    doc_.containers_.emplace_back();
    return true;
  }
  bool pushContainer(Kind kind) {
    Value v;
    return newContainer(kind, v) && push(v);
  }
  // EMPTY_DICT, EMPTY_LIST: the reader that knows the shape may take the new object over.
  bool pushEmpty(Kind kind) {
    if (shapes_) {
      Value h;
      if (!shapes_->create(kind, StackView{m_.stack.span(), m_.marks.empty() ? SIZE_MAX : m_.marks.back()}, doc_, h))
        return fail(m_.op_pos, shapes_->error());
      if (h.kind == Kind::Handle) {
        if (!shapes_->readAhead(h, m_, doc_)) return fail(m_.op_pos, shapes_->error());
        return true;
      }
    }
    return pushContainer(kind);
  }

  bool pushLong(uint64_t len, const char* opcode) {
    if (remaining() < len) return truncated(opcode);
    const std::string_view bytes = doc_.input_.substr(m_.pos, len);
    if (const auto v = longToInt64(bytes)) {
      m_.pos += len;
      return push(Value::makeInt(Kind::Int, *v));
    }
    if (len > limits_.max_string_bytes)
      return fail(m_.op_pos, fmt::format("{} of {} bytes is longer than the string limit ({})", opcode, len,
                                       raiseHint("string")));
    Value v;
    v.kind = Kind::BigInt;
    v.off = m_.pos;
    v.len = static_cast<uint32_t>(len);
    m_.pos += len;
    return push(v);
  }




  bool lengthPrefixed(Kind kind, int len_bytes, const char* opcode) {
    uint64_t len;
    if (!readLE(len, len_bytes)) return truncated(opcode);
    if (remaining() < len)
      return fail(m_.op_pos, fmt::format("{} says {} bytes follow but only {} remain (truncated?)", opcode, len, remaining()));
    if (len > limits_.max_string_bytes || len > std::numeric_limits<uint32_t>::max())
      return fail(m_.op_pos, fmt::format("{} of {} bytes is longer than the string limit ({})", opcode, len,
                                       raiseHint("string")));
    Value v;
    v.kind = kind;
    v.off = m_.pos;
    v.len = static_cast<uint32_t>(len);
    m_.pos += len;
    return push(v);
  }




  // A new container holding the `count` values on top of the stack, which it replaces.
  bool collect(Kind kind, size_t count) {
    if (count > limits_.max_container_items)
      return fail(m_.op_pos, fmt::format("a {} of {} items (more than the items limit; {})", kindName(kind), count,
                                       raiseHint("items")));
    Value v;
    if (!newContainer(kind, v)) return false;
    Value* data = count ? doc_.arena_.allocate(count, &budget_) : nullptr;
    if (count && !data) return outOfMemory("the pickle's containers");
    Document::Container& c = doc_.containers_.back();
    c.data = data;
    c.size = c.capacity = static_cast<uint32_t>(count);
    if (count) std::copy(m_.stack.end() - static_cast<ptrdiff_t>(count), m_.stack.end(), c.data);
    m_.stack.resize(m_.stack.size() - count);
    return push(v);
  }

  bool fromMark(Kind kind, const char* opcode) {
    size_t mark;
    if (!popMark(mark)) return fail(m_.op_pos, fmt::format("{} without a MARK", opcode));
    const size_t count = m_.stack.size() - mark;
    if (kind == Kind::Dict && count % 2 != 0) return fail(m_.op_pos, "DICT with an odd number of items");
    return collect(kind, count);
  }

  bool tupleOf(size_t count, const char* opcode) {
    if (m_.stack.size() < count + markFloor()) return fail(m_.op_pos, fmt::format("{} needs {} values on the stack", opcode, count));
    return collect(Kind::Tuple, count);
  }

  // Appends to a container. A container usually receives all its items at once (one SETITEMS),
  // which then fill exactly the room taken for them; one that keeps growing (a long list, in
  // batches of 1000) moves to twice its size when full.
  bool addTo(const Value& target, Kind want, const Value* values, size_t count, const char* opcode) {
    if (target.kind == Kind::Handle) {
      if (!shapes_->add(target, want, {values, count}, doc_)) return fail(m_.op_pos, shapes_->error());
      return true;
    }
    if (target.kind != want)
      return fail(m_.op_pos, fmt::format("{} onto a {} (expected a {})", opcode, kindName(target.kind), kindName(want)));
    Document::Container& c = doc_.containers_[target.container];
    if (c.frozen) return fail(m_.op_pos, fmt::format("{} onto a {} {}", opcode, kindName(want), kChangedAfterRead));
    const size_t size = c.size + count;
    if (size > limits_.max_container_items || size > std::numeric_limits<uint32_t>::max())
      return fail(m_.op_pos, fmt::format("a {} of more than {} items (the items limit; {})", kindName(want),
                                       std::min<uint64_t>(limits_.max_container_items, UINT32_MAX), raiseHint("items")));
    if (size > c.capacity) {
      if (c.data && doc_.arena_.extend(c.data + c.capacity, size - c.capacity)) {
        c.capacity = static_cast<uint32_t>(size);
      } else {
        const size_t capacity = c.size == 0 ? size : std::min<size_t>(std::max(size, size_t{2} * c.capacity), UINT32_MAX);
        Value* data = doc_.arena_.allocate(capacity, &budget_);
        if (!data) return outOfMemory("the pickle's containers");
        std::copy(c.data, c.data + c.size, data);
        if (c.data) doc_.arena_.release(c.data, &budget_);
        c.data = data;
        c.capacity = static_cast<uint32_t>(capacity);
      }
    }
    std::copy(values, values + count, c.data + c.size);
    c.size = static_cast<uint32_t>(size);
    return true;
  }

  bool setItems() {
    size_t mark;
    if (!popMark(mark)) return fail(m_.op_pos, "SETITEMS without a MARK");
    if ((m_.stack.size() - mark) % 2 != 0) return fail(m_.op_pos, "SETITEMS with an odd number of items");
    if (mark == 0 || mark <= markFloor()) return fail(m_.op_pos, "SETITEMS with no dict below its MARK");
    const bool ok = addTo(m_.stack[mark - 1], Kind::Dict, m_.stack.data() + mark, m_.stack.size() - mark, "SETITEMS");
    m_.stack.resize(mark);
    return ok;
  }

  bool addFromMark(Kind want, const char* opcode) {
    size_t mark;
    if (!popMark(mark)) return fail(m_.op_pos, fmt::format("{} without a MARK", opcode));
    if (mark == 0 || mark <= markFloor()) return fail(m_.op_pos, fmt::format("{} with nothing below its MARK", opcode));
    const bool ok = addTo(m_.stack[mark - 1], want, m_.stack.data() + mark, m_.stack.size() - mark, opcode);
    m_.stack.resize(mark);
    return ok;
  }

  [[gnu::always_inline]] inline bool memoPut(uint64_t key, const char* opcode) {
    if (m_.stack.size() <= m_.markFloor()) return fail(m_.op_pos, fmt::format("{} on an empty stack", opcode));
    switch (m_.memo.put(key, m_.stack.back(), budget_, m_.pos)) {
      case Memo::Put::Ok: return true;
      case Memo::Put::TooFar:
        return fail(m_.op_pos, fmt::format("{} index {} is far past the memo's end ({}): no pickle stores that many "
                                           "values in its first {} bytes",
                                           opcode, key, m_.memo.size(), m_.pos));
      case Memo::Put::OutOfMemory: return outOfMemory("the pickle's memo");
    }
    return true;
  }

  [[gnu::always_inline]] inline bool memoGet(uint64_t key, const char* opcode) {
    Value v;
    if (!m_.memo.get(key, v)) return fail(m_.op_pos, fmt::format("{} of memo entry {} that was never stored", opcode, key));
    return push(v);
  }

  Document& doc_;
  Machine m_;
  Progress* progress_;
  Shapes* shapes_;
  const std::function<void(size_t)>& consumed_;
  ReadBudget& budget_;
  const ReadLimits& limits_;
  bool stopped_ = false;
  std::string error_;
};

}  // namespace sawtooth::pickle
