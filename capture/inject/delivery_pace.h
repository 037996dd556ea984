#pragma once
// How long the allocator tracker waits between deliveries. Symbolizing a batch's Python frames
// holds the program's GIL for a time that grows with the distinct frames in the batch, not with
// its events, so fewer, larger batches cost the program less: the wait stretches until the GIL time
// is at most `gil_budget` of the wall time. It never stretches past `ceiling` (the live view's lag)
// nor past the time the queue takes to fill halfway at the last batch's event rate.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace sawtooth::tracker {

struct DeliveryPace {
  std::chrono::milliseconds floor{50};  // the delivery interval asked for
  std::chrono::milliseconds ceiling{1000};
  double gil_budget = 0.001;
};

// symbolize_ns: what the last batch's symbolization took; events and elapsed_ns: that batch's
// size and the time it covered; capacity: the queue's.
inline std::chrono::nanoseconds nextDeliveryWait(const DeliveryPace& pace, int64_t symbolize_ns, size_t events,
                                                 int64_t elapsed_ns, size_t capacity) {
  using std::chrono::nanoseconds;
  const auto floor = std::chrono::duration_cast<nanoseconds>(pace.floor);
  auto wait = std::max(floor, nanoseconds(static_cast<int64_t>(static_cast<double>(symbolize_ns) / pace.gil_budget)));
  wait = std::min(wait, std::chrono::duration_cast<nanoseconds>(std::max(pace.ceiling, pace.floor)));
  if (events > 0 && elapsed_ns > 0) {
    const double ns_per_event = static_cast<double>(elapsed_ns) / static_cast<double>(events);
    const auto half_full = nanoseconds(static_cast<int64_t>(ns_per_event * static_cast<double>(capacity / 2)));
    wait = std::min(wait, std::max(half_full, nanoseconds(std::chrono::milliseconds(1))));
  }
  return wait;
}

}  // namespace sawtooth::tracker
