#pragma once
// What a capture source does when its queue to the writer is full: wake the writer, wait for
// room a little (kFullQueueWait at most, sleeping in short steps), then drop the record and
// count it, so that the file can say exactly how many records it lacks. Once a wait has run out,
// the following records are dropped without waiting until the queue takes one again: a writer
// that cannot keep up costs the workload one wait, not one per record. Memory stays bounded by
// the queues' capacities.
// Producers may run under PyTorch's allocator lock: nothing here calls PyTorch, and the only lock
// taken (the writer's wake-up mutex) is never held by the writer around anything else.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "capture/writer/bounded_queue.h"

namespace sawtooth::capture {

inline constexpr std::chrono::milliseconds kFullQueueWait{10};

// The writer thread sleeps on this between batches; a producer facing a full queue wakes it.
class WriterWakeup {
 public:
  void wake() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requested_ = true;
    }
    cv_.notify_one();
  }
  // Sleeps up to `interval`, or until woken or `stop` holds. Returns true when woken early.
  template <typename Stop>
  bool sleep(std::chrono::milliseconds interval, Stop stop) {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool woken = cv_.wait_for(lock, interval, [&] { return requested_ || stop(); });
    requested_ = false;
    return woken;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool requested_ = false;
};

// Per source, updated by the producers with relaxed atomics.
struct QueueCounters {
  std::atomic<uint64_t> pushed{0};
  std::atomic<uint64_t> dropped{0};
  std::atomic<uint64_t> waited{0};     // pushes that found the queue full and waited
  std::atomic<uint64_t> waited_ns{0};  // total time those waits took
  std::atomic<bool> overflowing{false};  // a wait ran out; drop at once until a push succeeds
};

template <typename T>
bool pushOrDrop(BoundedQueue<T>& queue, const T& value, WriterWakeup* wakeup, QueueCounters& counters) {
  if (queue.tryPush(value)) {
    counters.pushed.fetch_add(1, std::memory_order_relaxed);
    if (counters.overflowing.load(std::memory_order_relaxed)) counters.overflowing.store(false, std::memory_order_relaxed);
    return true;
  }
  if (counters.overflowing.load(std::memory_order_relaxed)) {
    counters.dropped.fetch_add(1, std::memory_order_relaxed);
    if (wakeup) wakeup->wake();
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + kFullQueueWait;
  if (wakeup) wakeup->wake();
  bool pushed = false;
  auto now = start;
  while (!pushed && now < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    pushed = queue.tryPush(value);
    now = std::chrono::steady_clock::now();
  }
  counters.waited.fetch_add(1, std::memory_order_relaxed);
  counters.waited_ns.fetch_add(static_cast<uint64_t>(std::chrono::nanoseconds(now - start).count()),
                               std::memory_order_relaxed);
  (pushed ? counters.pushed : counters.dropped).fetch_add(1, std::memory_order_relaxed);
  if (!pushed) counters.overflowing.store(true, std::memory_order_relaxed);
  return pushed;
}

}  // namespace sawtooth::capture
