#pragma once
// Progress and cancellation handed to long work (loading, converting). Progress is reported on a
// 0..1000 scale from bytes or items consumed; report() calls back at most once per permille.

#include <atomic>
#include <cstdint>
#include <functional>

namespace sawtooth {

class Progress {
 public:
  using Callback = std::function<void(int permille)>;

  Progress() = default;
  Progress(Callback callback, const std::atomic<bool>* cancel) : callback_(std::move(callback)), cancel_(cancel) {}

  bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }

  void report(uint64_t done, uint64_t total) {
    if (!callback_ || total == 0) return;
    const uint64_t part = done >= total ? 1000 : done * 1000 / total;
    const int permille = lo_ + static_cast<int>((hi_ - lo_) * static_cast<int64_t>(part) / 1000);
    if (permille != last_) {
      last_ = permille;
      callback_(permille);
    }
  }

  // A child whose 0..1000 lands in [lo, hi] of this one's scale; cancellation is shared.
  Progress sub(int lo, int hi) const {
    Progress child(callback_, cancel_);
    child.lo_ = lo_ + (hi_ - lo_) * lo / 1000;
    child.hi_ = lo_ + (hi_ - lo_) * hi / 1000;
    return child;
  }

 private:
  Callback callback_;
  const std::atomic<bool>* cancel_ = nullptr;
  int lo_ = 0;
  int hi_ = 1000;
  int last_ = -1;
};

}  // namespace sawtooth
