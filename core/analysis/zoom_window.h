#pragma once
// The visible window of a timeline, as a small headless object with its invariants:
// bounds ⊇ window, window width ≥ minimum width (or the whole bounds when they are narrower).

namespace sawtooth {

class ZoomWindow {
 public:
  // Sets the full extent and shows all of it.
  void setBounds(double lo, double hi, double min_width = 1.0);
  void reset();

  void zoomTo(double a, double b);
  // factor < 1 zooms in, > 1 out; the anchor keeps its relative position.
  void zoomAround(double anchor, double factor);
  void pan(double dx);

  double lo() const { return lo_; }
  double hi() const { return hi_; }
  double boundsLo() const { return bounds_lo_; }
  double boundsHi() const { return bounds_hi_; }
  double width() const { return hi_ - lo_; }
  bool isZoomed() const { return lo_ > bounds_lo_ || hi_ < bounds_hi_; }

 private:
  void clampInto();
  double bounds_lo_ = 0, bounds_hi_ = 1, lo_ = 0, hi_ = 1, min_width_ = 1;
};

// Maps between data coordinates and pixels of a plot area [px0, px1].
struct PixelMapping {
  double x0, x1, px0, px1;
  double toPixel(double x) const { return px0 + (x - x0) * (px1 - px0) / (x1 - x0); }
  double toData(double px) const { return x0 + (px - px0) * (x1 - x0) / (px1 - px0); }
};

}  // namespace sawtooth
