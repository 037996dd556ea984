#include "core/io/pickle_arena.h"

#include <algorithm>

#include "core/io/read_limits.h"

namespace sawtooth::pickle {
namespace {

constexpr size_t kMaxBlockItems = size_t{1} << 20;  // 16 MiB
constexpr size_t kOwnBlockItems = kMaxBlockItems / 4;

}  // namespace

void ItemArena::Release::operator()(Value* p) const { ::operator delete(p); }

Value* ItemArena::allocate(size_t count, ReadBudget* budget) {
  if (count >= kOwnBlockItems) {
    // Large: a block of its own (released when the container moves on), leaving the current
    // block's room for what follows.
    if (budget && !budget->take(count * sizeof(Value))) return nullptr;
    large_.push_back(Large{std::unique_ptr<Value, Release>(static_cast<Value*>(::operator new(count * sizeof(Value)))), count});
    return large_.back().data.get();
  }
  if (static_cast<size_t>(limit_ - cursor_) < count) {
    const size_t items = std::max(next_block_items_, count);
    if (budget && !budget->take(items * sizeof(Value))) return nullptr;
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

void ItemArena::release(const Value* data, ReadBudget* budget) {
  // Storage inside a shared block is reclaimed with the document.
  for (auto& block : large_) {
    if (block.data.get() != data) continue;
    if (budget) budget->give(block.count * sizeof(Value));
    std::swap(block, large_.back());
    large_.pop_back();
    return;
  }
}

}  // namespace sawtooth::pickle
