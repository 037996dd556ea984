// The decoder's fast path: from an event dict's EMPTY_DICT on, the opcodes PyTorch's pickler
// writes for an event are read here rather than by the parser: the dict's memo slot, its MARK,
// each key and value (memo references, short strings, small integers), its frames list with the
// frame dicts inside, and SETITEMS; at SETITEMS the fields are written into the event's row.
// Then the next event of the same APPENDS batch, and so on. Everything read is also kept as the
// parser's stack would hold it (a shadow of it); at the first opcode or value this path does not
// expect it stops there, moves the shadow onto the parser's stack and registers its MARKs, and the
// parser goes on from that opcode as though it had read everything itself. A stopped event has
// written nothing: what the fast path read may still become something else than the dict's
// pairs (a TUPLE3 over a key and a value), so only the parser's SETITEMS writes its fields.

#include <fmt/format.h>

#include "core/io/snapshot_shapes.h"

namespace sawtooth::snapshot {

using pickle::Document;
using pickle::Kind;
using pickle::Machine;
using pickle::Memo;
using pickle::Value;

class SnapshotShapes::FastPath {
 public:
  FastPath(SnapshotShapes& shapes, Machine& m, Document& doc)
      : s_(shapes),
        m_(m),
        doc_(doc),
        in_(m.in),
        n_(m.n),
        pos_(m.pos),
        shadow_(shapes.fast_shadow_),
        shadow_marks_(shapes.fast_marks_),
        seen_(shapes.fast_seen_) {}

  // Reads events from the one just created on; false on an error (s_.error()).
  bool run(Value event) {
    // A bounded number of events per call, so that the parser's progress, cancel and deadline
    // checks still come round.
    for (int count = 1;; ++count) {
      const size_t base = m_.stack.size();
      if (!m_.stack.push(event, *m_.budget)) return s_.fail(m_.budget->memoryError("the pickle's value stack").message);
      shadow_.clear();
      shadow_marks_.clear();
      const Step step = readEvent(event);
      if (step == Step::Error) return false;
      if (step == Step::Stop) return stop(base + 1);
      // The event is complete, on the stack. Another one next, in the same APPENDS batch?
      skipFrames();
      // The parser creates the next one (and with it starts this path again).
      if (count == kEventsPerCall) break;
      if (pos_ >= n_ || in_[pos_] != '}' || m_.marks.empty()) break;
      const size_t mark = m_.marks.back();
      if (mark == 0 || mark > m_.stack.size()) break;
      const Value& list = m_.stack[mark - 1];
      if (list.kind != Kind::Handle || list.tag != kEventList) break;
      m_.op_pos = pos_++;
      if (!s_.newEvent(event)) return false;
    }
    m_.pos = pos_;
    return true;
  }

 private:
  enum class Step { Done, Stop, Error };
  static constexpr size_t kMaxShadow = 4096;
  static constexpr int kEventsPerCall = 2048;

  // Moves what was read of the unfinished structures onto the parser's stack, as it would have
  // them: the shadow's values, its MARKs at their places. `base`: the stack size the shadow
  // starts at.
  bool stop(size_t base) {
    for (size_t mark : shadow_marks_) {
      if (m_.marks.size() == m_.marks.capacity() && !m_.budget->take(std::max<size_t>(m_.marks.capacity(), 64) * 8))
        return s_.fail(m_.budget->memoryError("the pickle's nesting").message);
      m_.marks.push_back(base + mark);
    }
    for (const Value& v : shadow_)
      if (!m_.stack.push(v, *m_.budget)) return s_.fail(m_.budget->memoryError("the pickle's value stack").message);
    m_.pos = pos_;
    return true;
  }

  void skipFrames() {
    // FRAME (protocol 4): a length hint between any two opcodes, nothing to build.
    while (pos_ < n_ && in_[pos_] == 0x95 && n_ - pos_ >= 9) pos_ += 9;
  }
  // The next opcode, or 0 at the end (never an opcode this path reads).
  uint8_t peek() {
    skipFrames();
    return pos_ < n_ ? in_[pos_] : 0;
  }

  // An optional MEMOIZE / BINPUT / LONG_BINPUT of `v`; false when it cannot be done here (the
  // parser will, or will say why).
  bool memoize(const Value& v) {
    const uint8_t op = peek();
    uint64_t key = 0;
    size_t size = 1;
    if (op == 0x94) {
      key = m_.memo.count();
    } else if (op == 'q' && n_ - pos_ >= 2) {
      key = in_[pos_ + 1];
      size = 2;
    } else if (op == 'r' && n_ - pos_ >= 5) {
      key = pickle::load32(in_ + pos_ + 1);
      size = 5;
    } else {
      return op != 0x94 && op != 'q' && op != 'r';  // none: fine; a truncated one: the parser's
    }
    if (m_.memo.put(key, v, *m_.budget, pos_ + size) != Memo::Put::Ok) return false;
    pos_ += size;
    return true;
  }

  // A memo reference, a short string, a small integer, None or a bool: the value, and true;
  // false (nothing read) for anything else.
  bool scalarOrRef(Value& out) {
    const uint8_t op = peek();
    const size_t left = n_ - pos_;
    switch (op) {
      case 'h':
        if (left < 2) return false;
        if (m_.memo.get(in_[pos_ + 1], out)) {
          pos_ += 2;
          return true;
        }
        return false;
      case 'j':
        if (left < 5) return false;
        if (m_.memo.get(pickle::load32(in_ + pos_ + 1), out)) {
          pos_ += 5;
          return true;
        }
        return false;
      case 0x8c: {
        if (left < 2 || left - 2 < in_[pos_ + 1]) return false;
        const size_t at = pos_;
        out = Value();
        out.kind = Kind::Str;
        out.len = in_[pos_ + 1];
        out.off = pos_ + 2;
        pos_ += 2 + out.len;
        if (memoize(out)) return true;
        pos_ = at;  // memoize may have stepped over FRAMEs too: back to the string's opcode
        return false;
      }
      case 'K':
        if (left < 2) return false;
        out = Value::makeInt(Kind::Int, in_[pos_ + 1]);
        pos_ += 2;
        return true;
      case 'M':
        if (left < 3) return false;
        out = Value::makeInt(Kind::Int, in_[pos_ + 1] | in_[pos_ + 2] << 8);
        pos_ += 3;
        return true;
      case 'J':
        if (left < 5) return false;
        out = Value::makeInt(Kind::Int, static_cast<int32_t>(pickle::load32(in_ + pos_ + 1)));
        pos_ += 5;
        return true;
      case 0x8a: {
        if (left < 10) return false;  // LONG1 of up to 8 bytes, with room to load 8
        const size_t len = in_[pos_ + 1];
        if (len < 1 || len > 8) return false;
        uint64_t raw;
        std::memcpy(&raw, in_ + pos_ + 2, 8);
        const unsigned shift = static_cast<unsigned>(64 - 8 * len);
        out = Value::makeInt(Kind::Int, static_cast<int64_t>(raw << shift) >> shift);
        pos_ += 2 + len;
        return true;
      }
      case 'N':
        out = Value();
        ++pos_;
        return true;
      case 0x88:
      case 0x89:
        out = Value::makeInt(Kind::Bool, op == 0x88);
        ++pos_;
        return true;
      default: return false;
    }
  }

  // The field a key names. Keys are memo references to the strings written once: remembered by
  // where the string's bytes lie.
  Field fieldOf(const Value& key) {
    if (key.owned) return classifyKey(doc_.str(key));
    FastSeen& seen = seen_[key.off % kFastSeen];
    if (seen.off != key.off || seen.len != key.len) seen = {key.off, key.len, classifyKey(doc_.str(key))};
    return seen.field;
  }

  // One event dict from just after its EMPTY_DICT: its memo slot, MARK, pairs, SETITEMS.
  Step readEvent(const Value& event) {
    const uint64_t row = event.handle;
    if (!memoize(event)) return Step::Stop;
    if (peek() != '(' || m_.marks.size() + 1 >= m_.budget->limits().max_depth) return Step::Stop;
    ++pos_;
    shadow_marks_.push_back(shadow_.size());
    while (true) {
      // A dict or list far larger than any event's: the parser reads it, within its limits.
      if (shadow_.size() > kMaxShadow) return Step::Stop;
      const uint8_t op = peek();
      if (op == 'u') {
        m_.op_pos = pos_++;  // errors name this opcode, as the parser's would
        // shadow_ holds the pairs: key, value, key, value...
        for (size_t k = 0; k + 1 < shadow_.size(); k += 2)
          if (!s_.setEventField(row, fieldOf(shadow_[k]), shadow_[k + 1], doc_)) return Step::Error;
        shadow_.clear();
        shadow_marks_.clear();
        return Step::Done;
      }
      Value key;
      if (!scalarOrRef(key)) return Step::Stop;
      shadow_.push_back(key);
      if (key.kind != Kind::Str) return Step::Stop;  // the parser reads what this path does not
      if (peek() == ']' && fieldOf(key) == Field::Frames) {
        Value list;
        const Step frames = readFramesList(list);  // leaves the list on the shadow
        if (frames != Step::Done) return frames;
      } else if (Value value; !scalarOrRef(value)) {
        return Step::Stop;
      } else {
        shadow_.push_back(value);
      }
    }
  }

  // A new frames list from its EMPTY_LIST: its memo slot, and its items (MARK ... APPENDS, or one
  // item and APPEND, or none). Its frame ids go to the decoder as one region of ids_.
  Step readFramesList(Value& list) {
    m_.op_pos = pos_++;
    if (!s_.newFrames(list)) return Step::Error;
    shadow_.push_back(list);
    if (!memoize(list)) return Step::Stop;
    const uint8_t op = peek();
    if (op == '(') {
      if (m_.marks.size() + shadow_marks_.size() + 1 >= m_.budget->limits().max_depth) return Step::Stop;
      ++pos_;
      const size_t mark = shadow_.size();
      shadow_marks_.push_back(mark);
      while (peek() != 'e') {
        if (shadow_.size() > kMaxShadow) return Step::Stop;
        Value item;
        if (peek() == '}') {
          // After an event list the parser would make this dict an event: it reads it.
          if (shadow_.size() > mark && shadow_.back().kind == Kind::Handle && shadow_.back().tag == kEventList)
            return Step::Stop;
          const Step frame = readFrameDict(item);
          if (frame != Step::Done) return frame;
        } else if (!scalarOrRef(item)) {
          return Step::Stop;
        } else {
          shadow_.push_back(item);
        }
      }
      m_.op_pos = pos_++;
      // APPENDS: the items become the list's frame ids.
      if (!s_.addFrames(list.handle, Kind::List, std::span<const Value>(shadow_).subspan(mark), doc_))
        return Step::Error;
      shadow_.resize(mark);
      shadow_marks_.pop_back();
      return Step::Done;
    }
    if (op == 'h' || op == 'j' || op == '}') {
      const size_t mark = shadow_.size();
      Value item;
      if (op == '}') {
        const Step frame = readFrameDict(item);
        if (frame != Step::Done) return frame;
      } else if (!scalarOrRef(item)) {
        return Step::Stop;
      } else {
        shadow_.push_back(item);
      }
      if (peek() != 'a') return Step::Stop;
      m_.op_pos = pos_++;
      if (!s_.addFrames(list.handle, Kind::List, std::span<const Value>(shadow_).subspan(mark), doc_))
        return Step::Error;
      shadow_.resize(mark);
    }
    return Step::Done;  // an empty list, or one filled
  }

  // A new frame dict from its EMPTY_DICT: memo slot, MARK, name/filename/line, SETITEMS.
  Step readFrameDict(Value& frame) {
    m_.op_pos = pos_++;
    if (!s_.newFrame(frame)) return Step::Error;
    shadow_.push_back(frame);
    if (!memoize(frame) || peek() != '(' ||
        m_.marks.size() + shadow_marks_.size() + 1 >= m_.budget->limits().max_depth)
      return Step::Stop;
    ++pos_;
    const size_t mark = shadow_.size();
    shadow_marks_.push_back(mark);
    while (peek() != 'u') {
      if (shadow_.size() > kMaxShadow) return Step::Stop;
      Value v;
      if (!scalarOrRef(v)) return Step::Stop;
      shadow_.push_back(v);
    }
    // Key without a value: the parser runs this SETITEMS itself and refuses it where it stands.
    if ((shadow_.size() - mark) % 2 != 0) return Step::Stop;
    m_.op_pos = pos_++;
    if (!s_.setFrameFields(frame.handle, Kind::Dict, std::span<const Value>(shadow_).subspan(mark), doc_))
      return Step::Error;
    shadow_.resize(mark);
    shadow_marks_.pop_back();
    return Step::Done;
  }

  SnapshotShapes& s_;
  Machine& m_;
  Document& doc_;
  const unsigned char* in_;
  const size_t n_;
  size_t pos_;
  // What the parser's stack would hold above the event, and its MARKs (positions in shadow_);
  // kept by the decoder between calls.
  std::vector<Value>& shadow_;
  std::vector<size_t>& shadow_marks_;
  FastSeen* seen_;
};

bool SnapshotShapes::readAhead(const Value& handle, Machine& machine, Document& doc) {
  if (handle.tag != kEvent) {
    if (!machine.stack.push(handle, *machine.budget)) return fail(budget_.memoryError("the pickle's value stack").message);
    return true;
  }
  FastPath fast(*this, machine, doc);
  return fast.run(handle);
}

}  // namespace sawtooth::snapshot
