#pragma once
// A bounded multi-producer queue (Dmitry Vyukov's array queue). Push and pop never allocate and
// never block: a full queue refuses the push, and the producer decides what to do
// (queue_policy.h: wait a little, then drop and count).

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace sawtooth::capture {

template <typename T>
class BoundedQueue {
 public:
  // capacity must be a power of two.
  explicit BoundedQueue(size_t capacity) : mask_(capacity - 1), cells_(new Cell[capacity]) {
    for (size_t i = 0; i < capacity; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  size_t capacity() const { return mask_ + 1; }
  // What the queue holds in memory, allocated once.
  size_t bytes() const { return capacity() * sizeof(Cell); }

  bool tryPush(const T& value) { return emplace(value); }
  // Moves `value` in only when there is room (left as it was on a full queue).
  bool tryPush(T&& value) { return emplace(std::move(value)); }

  bool tryPop(T& out) {
    size_t pos = dequeue_.load(std::memory_order_relaxed);
    Cell* cell;
    while (true) {
      cell = &cells_[pos & mask_];
      const size_t seq = cell->sequence.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos + 1);
      if (diff == 0) {
        if (dequeue_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
      } else if (diff < 0) {
        return false;  // empty
      } else {
        pos = dequeue_.load(std::memory_order_relaxed);
      }
    }
    out = std::move(cell->value);
    cell->value = T{};  // release what the slot holds (a stack context) now, on the consumer side
    cell->sequence.store(pos + mask_ + 1, std::memory_order_release);
    return true;
  }

 private:
  template <typename V>
  bool emplace(V&& value) {
    size_t pos = enqueue_.load(std::memory_order_relaxed);
    Cell* cell;
    while (true) {
      cell = &cells_[pos & mask_];
      const size_t seq = cell->sequence.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos);
      if (diff == 0) {
        if (enqueue_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
      } else if (diff < 0) {
        return false;  // full
      } else {
        pos = enqueue_.load(std::memory_order_relaxed);
      }
    }
    cell->value = std::forward<V>(value);
    cell->sequence.store(pos + 1, std::memory_order_release);
    return true;
  }

  struct Cell {
    std::atomic<size_t> sequence;
    T value;
  };
  const size_t mask_;
  std::unique_ptr<Cell[]> cells_;
  alignas(64) std::atomic<size_t> enqueue_{0};
  alignas(64) std::atomic<size_t> dequeue_{0};
};

}  // namespace sawtooth::capture
