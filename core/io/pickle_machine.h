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
// number of entries stored so far.
class Memo {
 public:
  enum class Put { Ok, TooFar, OutOfMemory };
  // Memo keys far past the end are refused rather than letting a hostile file make us allocate
  // gigabytes: at most kMaxGap past the end, and never past `max_key`, the bytes read so far (each
  // value a pickle stores took at least a byte to write, so the memo stays within 16 bytes per
  // byte of input).
  static constexpr uint64_t kMaxGap = 1u << 20;

  void reserve(size_t n, ReadBudget& budget) {
    if (budget.take(n * sizeof(Value))) slots_.reserve(n);
  }
  uint64_t count() const { return count_; }
  uint64_t size() const { return slots_.size(); }
  // nullptr when the key was never stored.
  [[gnu::always_inline]] const Value* get(uint64_t key) const {
    if (key >= slots_.size() || slots_[key].kind == kUnset) return nullptr;
    return &slots_[key];
  }
  [[gnu::always_inline]] Put put(uint64_t key, const Value& v, ReadBudget& budget, uint64_t max_key) {
    if (key == slots_.size()) {
      if (slots_.size() == slots_.capacity() && !grow(slots_.size() + 1, budget)) return Put::OutOfMemory;
      slots_.push_back(v);
      ++count_;
      return Put::Ok;
    }
    return putFar(key, v, budget, max_key);
  }

 private:
  // Marks slots never stored; never the kind of a value.
  static constexpr auto kUnset = static_cast<Kind>(0xff);

  Put putFar(uint64_t key, const Value& v, ReadBudget& budget, uint64_t max_key) {
    if (key > slots_.size()) {
      if (key - slots_.size() > kMaxGap || key > max_key) return Put::TooFar;
      if (!grow(key + 1, budget)) return Put::OutOfMemory;
      Value unset;
      unset.kind = kUnset;
      slots_.resize(key + 1, unset);
    }
    if (slots_[key].kind == kUnset) ++count_;
    slots_[key] = v;
    return Put::Ok;
  }
  bool grow(size_t needed, ReadBudget& budget) {
    size_t capacity = slots_.capacity();
    if (needed <= capacity) return true;
    const size_t target = std::max({needed, capacity * 2, size_t{64}});
    if (!budget.take((target - capacity) * sizeof(Value))) return false;
    slots_.reserve(target);
    return true;
  }

  std::vector<Value> slots_;
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
