#pragma once
// The unpickler's working state: the input and where it is read, the value stack, the MARKs and
// the memo. pickle_document.cpp runs opcodes over it; a reader that knows the data's shape (the
// snapshot decoder's fast path) may read ahead through the same state, for the opcodes it
// expects, and leave it exactly as the parser would have.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "core/io/pickle_value.h"
#include "core/io/read_limits.h"

namespace sawtooth::pickle {

// The value stack: a raw array whose push is a compare and a store (a snapshot pushes some 20
// values per event), grown by doubling against the budget.
class ValueStack {
 public:
  ValueStack() = default;
  ValueStack(const ValueStack&) = delete;
  ValueStack& operator=(const ValueStack&) = delete;
  ~ValueStack() { std::free(base_); }

  size_t size() const { return static_cast<size_t>(top_ - base_); }
  bool empty() const { return top_ == base_; }
  Value& back() { return top_[-1]; }
  Value& operator[](size_t i) { return base_[i]; }
  Value* data() { return base_; }
  Value* end() { return top_; }
  void pop_back() { --top_; }
  void resize(size_t n) { top_ = base_ + n; }  // only ever shrinks
  std::span<const Value> span() const { return {base_, size()}; }
  // False when the budget refuses the memory.
  [[gnu::always_inline]] bool push(const Value& v, ReadBudget& budget) {
    if (top_ == cap_ && !grow(budget)) return false;
    *top_++ = v;
    return true;
  }

 private:
  bool grow(ReadBudget& budget) {
    const size_t size = this->size(), capacity = static_cast<size_t>(cap_ - base_);
    const size_t more = std::max<size_t>(capacity, 256);
    if (!budget.take(more * sizeof(Value))) return false;
    auto* grown = static_cast<Value*>(std::realloc(base_, (capacity + more) * sizeof(Value)));
    if (!grown) return false;
    base_ = grown;
    top_ = base_ + size;
    cap_ = base_ + capacity + more;
    return true;
  }

  Value* base_ = nullptr;
  Value* top_ = nullptr;
  Value* cap_ = nullptr;
};

// The memo: values by key. Keys are dense in every pickle Python writes; MEMOIZE's key is the
// number of entries stored so far. A pickle memoizes about every container it builds (a snapshot:
// each event dict and its frames list), so the memo is the one structure that grows with the
// events even when a reader streams them: each entry is kept in 8 bytes where it fits (a typed
// handle, a string in the input, a container), any other value in a side table.
class Memo {
 public:
  enum class Put { Ok, TooFar, OutOfMemory };
  // Memo keys far past the end are refused rather than letting a hostile file make us allocate
  // gigabytes: at most kMaxGap past the end, and never past `max_key`, the bytes read so far (each
  // value a pickle stores took at least a byte to write, so the memo stays within 16 bytes per
  // byte of input).
  static constexpr uint64_t kMaxGap = 1u << 20;

  void reserve(size_t n, ReadBudget& budget) {
    if (budget.take(n * sizeof(uint64_t))) slots_.reserve(n);
  }
  uint64_t count() const { return count_; }
  uint64_t size() const { return slots_.size(); }
  // False when the key was never stored.
  [[gnu::always_inline]] bool get(uint64_t key, Value& out) const {
    if (key >= slots_.size() || slots_[key] == kUnset) return false;
    out = decode(slots_[key]);
    return true;
  }
  [[gnu::always_inline]] Put put(uint64_t key, const Value& v, ReadBudget& budget, uint64_t max_key) {
    if (key == slots_.size()) {
      if (slots_.size() == slots_.capacity() && !grow(slots_.size() + 1, budget)) return Put::OutOfMemory;
      uint64_t slot = 0;
      if (!encode(v, slot, budget)) return Put::OutOfMemory;
      slots_.push_back(slot);
      ++count_;
      return Put::Ok;
    }
    return putFar(key, v, budget, max_key);
  }

 private:
  // A slot: 0 never stored; else its class in the top 3 bits.
  static constexpr uint64_t kUnset = 0;
  static constexpr int kClassShift = 61;
  enum : uint64_t { kHandle = 1, kInputStr = 2, kContainer = 3, kWide = 4 };
  static constexpr uint64_t kLow56 = (uint64_t{1} << 56) - 1, kLow40 = (uint64_t{1} << 40) - 1;

  // (What does not fit, or would not come back the same, goes to the side table.)
  bool encode(const Value& v, uint64_t& slot, ReadBudget& budget) {
    const auto payload = static_cast<uint64_t>(v.i);
    if (v.kind == Kind::Handle && !v.owned && v.len == 0 && v.tag < 32 && payload <= kLow56) {
      slot = kHandle << kClassShift | uint64_t{v.tag} << 56 | payload;
      return true;
    }
    if (v.kind == Kind::Str && !v.owned && v.tag == 0 && v.len < (1u << 21) && payload <= kLow40) {
      slot = kInputStr << kClassShift | uint64_t{v.len} << 40 | payload;
      return true;
    }
    if (v.isContainer() && !v.owned && v.tag == 0 && v.len == 0 && payload <= UINT32_MAX) {
      slot = kContainer << kClassShift | uint64_t{static_cast<uint8_t>(v.kind)} << 32 | payload;
      return true;
    }
    if (wide_.size() == wide_.capacity()) {
      const size_t more = std::max<size_t>(wide_.capacity(), 64);
      if (!budget.take(more * sizeof(Value))) return false;
      wide_.reserve(wide_.capacity() + more);
    }
    slot = kWide << kClassShift | wide_.size();
    wide_.push_back(v);
    return true;
  }
  Value decode(uint64_t slot) const {
    const uint64_t cls = slot >> kClassShift;
    Value v;
    switch (cls) {
      case kHandle:
        v.kind = Kind::Handle;
        v.tag = static_cast<uint8_t>((slot >> 56) & 31);
        v.i = static_cast<int64_t>(slot & kLow56);
        return v;
      case kInputStr:
        v.kind = Kind::Str;
        v.len = static_cast<uint32_t>((slot >> 40) & ((1u << 21) - 1));
        v.i = static_cast<int64_t>(slot & kLow40);
        return v;
      case kContainer:
        v.kind = static_cast<Kind>((slot >> 32) & 0xff);
        v.i = static_cast<int64_t>(slot & UINT32_MAX);
        return v;
      default: return wide_[slot & ((uint64_t{1} << kClassShift) - 1)];
    }
  }
  Put putFar(uint64_t key, const Value& v, ReadBudget& budget, uint64_t max_key) {
    if (key > slots_.size()) {
      if (key - slots_.size() > kMaxGap || key > max_key) return Put::TooFar;
      if (!grow(key + 1, budget)) return Put::OutOfMemory;
      slots_.resize(key + 1, kUnset);
    }
    if (slots_[key] == kUnset) ++count_;
    uint64_t slot = 0;
    if (!encode(v, slot, budget)) return Put::OutOfMemory;
    slots_[key] = slot;
    return Put::Ok;
  }
  bool grow(size_t needed, ReadBudget& budget) {
    size_t capacity = slots_.capacity();
    if (needed <= capacity) return true;
    const size_t target = std::max({needed, capacity * 2, size_t{64}});
    if (!budget.take((target - capacity) * sizeof(uint64_t))) return false;
    slots_.reserve(target);
    return true;
  }
  std::vector<uint64_t> slots_;
  std::vector<Value> wide_;
  uint64_t count_ = 0;
};

// Everything an opcode reads or changes.
struct Machine {
  const unsigned char* in = nullptr;
  size_t n = 0;
  size_t pos = 0;     // the next byte to read
  size_t op_pos = 0;  // where the current opcode began (for messages)
  ValueStack stack;
  std::vector<size_t> marks;  // stack sizes at each MARK
  Memo memo;
  ReadBudget* budget = nullptr;

  size_t markFloor() const { return marks.empty() ? 0 : marks.back(); }
};

inline uint32_t load32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // little-endian hosts only (x86-64, aarch64)
}

}  // namespace sawtooth::pickle
