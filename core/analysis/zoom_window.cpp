#include "core/analysis/zoom_window.h"

#include <algorithm>
#include <utility>

namespace sawtooth {

void ZoomWindow::setBounds(double lo, double hi, double min_width) {
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) hi = lo + 1;
  bounds_lo_ = lo;
  bounds_hi_ = hi;
  min_width_ = std::max(min_width, 1e-9);
  reset();
}

void ZoomWindow::reset() {
  lo_ = bounds_lo_;
  hi_ = bounds_hi_;
}

void ZoomWindow::zoomTo(double a, double b) {
  if (b < a) std::swap(a, b);
  // What lies outside the bounds is cut off; a window entirely outside them keeps its width.
  if (b > bounds_lo_ && a < bounds_hi_) {
    a = std::max(a, bounds_lo_);
    b = std::min(b, bounds_hi_);
  }
  lo_ = a;
  hi_ = b;
  clampInto();
}

void ZoomWindow::zoomAround(double anchor, double factor) {
  if (factor <= 0) return;
  anchor = std::clamp(anchor, lo_, hi_);
  const double left = (anchor - lo_) * factor;
  const double right = (hi_ - anchor) * factor;
  lo_ = anchor - left;
  hi_ = anchor + right;
  clampInto();
}

void ZoomWindow::pan(double dx) {
  const double w = width();
  lo_ = std::clamp(lo_ + dx, bounds_lo_, bounds_hi_ - w);
  hi_ = lo_ + w;
}

void ZoomWindow::clampInto() {
  const double full = bounds_hi_ - bounds_lo_;
  double w = std::min(std::max(hi_ - lo_, std::min(min_width_, full)), full);
  const double centre = (lo_ + hi_) / 2;
  lo_ = centre - w / 2;
  hi_ = centre + w / 2;
  if (lo_ < bounds_lo_) lo_ = bounds_lo_, hi_ = lo_ + w;
  if (hi_ > bounds_hi_) hi_ = bounds_hi_, lo_ = hi_ - w;
}

}  // namespace sawtooth
