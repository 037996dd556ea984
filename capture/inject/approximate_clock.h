#pragma once
// The allocator tracker's clock: PyTorch stamps every trace entry with its approximate clock (the
// CPU's time-stamp counter on x86, c10::getApproximateTime()) before it calls the tracker, so the
// tracker keeps that stamp instead of reading the monotonic clock once more per event, on the
// allocating thread, under the allocator's lock. The sending thread maps the stamps to monotonic
// nanoseconds (the recording's one clock) by anchors, pairs of readings of both clocks: one at
// each delivery, two at the start (a few milliseconds apart, for a first slope). A stamp maps onto
// the line through the last two anchors; mapped times never decrease, so the stream stays in order.

#include <cmath>
#include <cstdint>

namespace sawtooth::tracker {

class ApproximateClock {
 public:
  // Both clocks read at (nearly) the same instant; anchors come in time order.
  void anchor(uint64_t approx, int64_t ns) {
    if (anchors_ > 0) {
      if (approx <= approx_ || ns <= ns_) return;  // no time passed on one of them: keep the slope
      slope_ = static_cast<double>(ns - ns_) / static_cast<double>(approx - approx_);
    }
    approx_ = approx;
    ns_ = ns;
    ++anchors_;
  }

  // A slope needs two anchors.
  bool ready() const { return anchors_ >= 2; }

  int64_t toNs(uint64_t approx) {
    const double ticks = approx >= approx_ ? static_cast<double>(approx - approx_) : -static_cast<double>(approx_ - approx);
    int64_t t = ns_ + std::llround(ticks * slope_);
    if (t < last_) t = last_;
    last_ = t;
    return t;
  }

 private:
  uint64_t anchors_ = 0;
  uint64_t approx_ = 0;
  int64_t ns_ = 0;
  double slope_ = 1.0;  // nanoseconds per tick
  int64_t last_ = 0;
};

}  // namespace sawtooth::tracker
