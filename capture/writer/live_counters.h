#pragma once
// Bytes allocated right now and the peak since the last reset, per device, updated from the
// capture callbacks with atomics only. Slot 0 is the CPU, slot 1 + d is CUDA device d.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

namespace sawtooth::capture {

class LiveCounters {
 public:
  static constexpr int kSlots = 17;

  void add(int16_t device, int64_t bytes) {
    const int s = slot(device);
    if (s < 0) return;
    const int64_t now = current_[s].fetch_add(bytes, std::memory_order_relaxed) + bytes;
    int64_t peak = peak_[s].load(std::memory_order_relaxed);
    while (now > peak && !peak_[s].compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void resetPeaks() {
    for (int s = 0; s < kSlots; ++s) peak_[s].store(current_[s].load());
  }
  int64_t current(int16_t device) const { return slot(device) < 0 ? 0 : current_[slot(device)].load(); }
  int64_t peak(int16_t device) const { return slot(device) < 0 ? 0 : peak_[slot(device)].load(); }

 private:
  static int slot(int16_t device) { return device + 1 >= 0 && device + 1 < kSlots ? device + 1 : -1; }
  std::array<std::atomic<int64_t>, kSlots> current_{};
  std::array<std::atomic<int64_t>, kSlots> peak_{};
};

}  // namespace sawtooth::capture
