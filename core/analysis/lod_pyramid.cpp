#include "core/analysis/lod_pyramid.h"

#include <algorithm>
#include <cmath>

namespace sawtooth {
namespace {

using Envelope = LodPyramid::Envelope;

// Envelope of a followed by b.
Envelope combine(const Envelope& a, const Envelope& b) {
  const bool min_from_a = a.min <= b.min;
  const bool max_from_a = a.max >= b.max;
  Envelope out;
  out.min = min_from_a ? a.min : b.min;
  out.max = max_from_a ? a.max : b.max;
  if (min_from_a == max_from_a) out.min_first = min_from_a ? a.min_first : b.min_first;
  else out.min_first = min_from_a;  // min in a, max in b → min first
  return out;
}

Envelope single(int64_t v) { return Envelope{v, v, true}; }

}  // namespace

LodPyramid::LodPyramid(std::span<const int64_t> values) { extend(values); }

void LodPyramid::extend(std::span<const int64_t> values) {
  size_t n = values.size();
  // First entry of the level below that changed: raw points from the old size on.
  size_t dirty = std::min(values_.size(), n);
  values_ = values;
  // Level 0 aggregates the raw points by 4; each next level aggregates the one below by 4.
  for (size_t k = 0; n > 1; ++k) {
    const size_t m = (n + kFanout - 1) / kFanout;
    if (k == levels_.size()) {
      levels_.emplace_back();
      dirty = 0;  // a new level is computed whole
    }
    const Level* below = k == 0 ? nullptr : &levels_[k - 1];
    Level& level = levels_[k];
    const size_t from = dirty / kFanout;  // the block holding the first changed entry below
    level.min_max.resize(m);
    level.min_first.resize(m);
    for (size_t j = from; j < m; ++j) {
      const size_t b = j * kFanout, e = std::min(n, b + kFanout);
      Envelope acc = below ? below->at(b) : single(values[b]);
      for (size_t i = b + 1; i < e; ++i) acc = combine(acc, below ? below->at(i) : single(values[i]));
      level.min_max[j] = {acc.min, acc.max};
      level.min_first[j] = acc.min_first;
    }
    dirty = from;
    n = m;
  }
}

LodPyramid::Envelope LodPyramid::range(size_t begin, size_t end) const {
  Envelope acc = single(values_[begin]);
  size_t i = begin + 1;
  while (i < end) {
    // Take the largest aligned block that starts at i and fits before end.
    size_t block = 1;
    int level = -1;
    while (level + 1 < static_cast<int>(levels_.size())) {
      const size_t next = block * kFanout;
      if (i % next != 0 || i + next > end) break;
      block = next;
      ++level;
    }
    acc = combine(acc, level < 0 ? single(values_[i]) : levels_[static_cast<size_t>(level)].at(i / block));
    i += block;
  }
  return acc;
}

std::vector<LodPoint> LodPyramid::query(std::span<const int64_t> xs, int64_t start, double x0, double x1,
                                        int columns) const {
  std::vector<LodPoint> out;
  if (columns <= 0 || !(x1 > x0)) return out;
  out.reserve(static_cast<size_t>(columns) * 2);
  const double width = (x1 - x0) / columns;
  // First point at or after a coordinate.
  const size_t n = values_.size();
  auto firstAtOrAfter = [&](double x) -> size_t {
    if (xs.empty()) return x <= 0 ? 0 : static_cast<size_t>(std::min(std::ceil(x), static_cast<double>(n)));
    return static_cast<size_t>(std::lower_bound(xs.begin(), xs.end(), x,
                                                [](int64_t v, double target) { return static_cast<double>(v) < target; }) -
                               xs.begin());
  };
  size_t i = firstAtOrAfter(x0);
  for (int c = 0; c < columns; ++c) {
    const double cx = x0 + (c + 0.5) * width;
    const size_t end = c + 1 == columns ? firstAtOrAfter(std::nextafter(x1, INFINITY)) : firstAtOrAfter(x0 + (c + 1) * width);
    const int64_t carried = i == 0 ? start : values_[i - 1];
    if (end <= i) {
      out.push_back({cx, static_cast<double>(carried)});
      continue;
    }
    const Envelope env = combine(single(carried), range(i, end));
    const double first = static_cast<double>(env.min_first ? env.min : env.max);
    const double second = static_cast<double>(env.min_first ? env.max : env.min);
    out.push_back({cx, first});
    if (env.min != env.max) out.push_back({cx, second});
    i = end;
  }
  return out;
}

size_t LodPyramid::bytesResident() const {
  size_t bytes = 0;
  for (const auto& level : levels_) bytes += level.min_max.capacity() * sizeof(level.min_max[0]) + level.min_first.capacity() / 8;
  return bytes;
}

}  // namespace sawtooth
