#pragma once
// Level-of-detail for drawing a step series with a fixed point budget. Built once per series
// (4 points per bucket per level, about a third of the points in all), it answers a visible range
// split into pixel columns with the exact envelope of each column: the smallest and largest value
// the step function takes in it (the value carried in from the left included), in the order they
// occur. Two points per column look identical to drawing every point. A pyramid can grow with
// its series (extend): only the blocks the new points fall in are recomputed, so a live recording
// costs in proportion to what it added.

#include <cstdint>
#include <span>
#include <vector>

namespace sawtooth {

struct LodPoint {
  double x;
  double y;
};

class LodPyramid {
 public:
  struct Envelope {
    int64_t min = 0;
    int64_t max = 0;
    bool min_first = true;  // the minimum occurs no later than the maximum
  };

  LodPyramid() = default;
  // `values` must outlive the pyramid.
  explicit LodPyramid(std::span<const int64_t> values);

  // The series grew (or moved): `values` holds every point, the first size() of them unchanged.
  // Recomputes the last block of each level and adds the new ones: O(new points + levels).
  void extend(std::span<const int64_t> values);

  size_t size() const { return values_.size(); }
  // Envelope of points [begin, end); requires begin < end <= size().
  Envelope range(size_t begin, size_t end) const;

  // Columns over [x0, x1): `xs` holds each point's coordinate (non-decreasing; empty: a point's
  // coordinate is its position), `start` the value before the first point. Returns about two
  // points per column (min and max, in order of occurrence), placed at the column's centre.
  std::vector<LodPoint> query(std::span<const int64_t> xs, int64_t start, double x0, double x1, int columns) const;

  size_t bytesResident() const;

 private:
  static constexpr int kFanout = 4;
  // levels_[k] entry j covers points [j*4^(k+1), (j+1)*4^(k+1)); 16 bytes and a bit per entry.
  struct Level {
    std::vector<std::pair<int64_t, int64_t>> min_max;
    std::vector<bool> min_first;
    Envelope at(size_t j) const { return Envelope{min_max[j].first, min_max[j].second, min_first[j]}; }
  };
  std::span<const int64_t> values_;
  std::vector<Level> levels_;
};

}  // namespace sawtooth
