#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/analysis/lod_pyramid.h"

namespace sawtooth {
namespace {

std::vector<int64_t> randomWalk(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> v(n);
  int64_t x = 0;
  for (auto& e : v) e = x += static_cast<int64_t>(rng() % 2001) - 1000;
  return v;
}

TEST(LodPyramid, RangeEnvelopeIsTheTrueMinAndMax) {
  for (size_t n : {1u, 2u, 3u, 4u, 5u, 16u, 17u, 1000u, 4099u}) {
    const auto v = randomWalk(n, n);
    LodPyramid lod(v);
    std::mt19937_64 rng(n);
    for (int q = 0; q < 300; ++q) {
      size_t a = rng() % n, b = rng() % n;
      if (a > b) std::swap(a, b);
      ++b;
      const auto env = lod.range(a, b);
      const auto [mn, mx] = std::minmax_element(v.begin() + a, v.begin() + b);
      ASSERT_EQ(env.min, *mn) << n << " [" << a << "," << b << ")";
      ASSERT_EQ(env.max, *mx);
      // The order flag tells which extreme comes first (first occurrences).
      if (env.min != env.max) ASSERT_EQ(env.min_first, mn < mx);
    }
  }
}

// A pyramid grown in pieces (a live recording's refreshes) answers exactly as one built at once,
// whatever the pieces' sizes and wherever they cut the blocks.
TEST(LodPyramid, GrownInPiecesEqualsBuiltAtOnce) {
  const auto all = randomWalk(70001, 7);
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<int64_t> grown;
    LodPyramid lod;
    while (grown.size() < all.size()) {
      const size_t piece = std::min(all.size() - grown.size(), static_cast<size_t>(rng() % (trial < 3 ? 7 : 5000)) + 1);
      grown.insert(grown.end(), all.begin() + static_cast<ptrdiff_t>(grown.size()),
                   all.begin() + static_cast<ptrdiff_t>(grown.size() + piece));
      lod.extend(grown);  // the vector may have moved: the pyramid follows it
      if (rng() % 50 == 0 || grown.size() == all.size()) {
        const LodPyramid whole(grown);
        ASSERT_EQ(lod.size(), whole.size());
        for (int q = 0; q < 50; ++q) {
          size_t a = rng() % grown.size(), b = rng() % grown.size();
          if (a > b) std::swap(a, b);
          ++b;
          const auto x = lod.range(a, b), y = whole.range(a, b);
          ASSERT_EQ(x.min, y.min);
          ASSERT_EQ(x.max, y.max);
          ASSERT_EQ(x.min_first, y.min_first);
        }
        const auto qa = lod.query({}, 0, 0, static_cast<double>(grown.size()), 300);
        const auto qb = whole.query({}, 0, 0, static_cast<double>(grown.size()), 300);
        ASSERT_EQ(qa.size(), qb.size());
        for (size_t i = 0; i < qa.size(); ++i) ASSERT_EQ(qa[i].y, qb[i].y);
        ASSERT_EQ(lod.bytesResident() > 0, grown.size() > 1);
      }
    }
  }
}

TEST(LodPyramid, EachColumnHoldsTheStepFunctionsExtremes) {
  const size_t n = 100000;
  const auto v = randomWalk(n, 7);
  std::vector<int64_t> xs(n);
  std::mt19937_64 rng(3);
  int64_t t = 0;
  for (auto& x : xs) x = t += static_cast<int64_t>(rng() % 50);  // irregular times, repeats allowed
  LodPyramid lod(v);
  const int64_t start = -5;
  for (auto [x0, x1, cols] : {std::tuple<double, double, int>{0, static_cast<double>(t), 2000},
                              {static_cast<double>(t) * 0.25, static_cast<double>(t) * 0.2501, 800},
                              {-100.0, static_cast<double>(t) + 100, 37}}) {
    const auto points = lod.query(xs, start, x0, x1, cols);
    ASSERT_LE(points.size(), static_cast<size_t>(cols) * 2);
    // Brute force: the step function over each column, including the value carried in.
    const double w = (x1 - x0) / cols;
    size_t p = 0;
    for (int c = 0; c < cols; ++c) {
      const double lo = x0 + c * w, hi = x0 + (c + 1) * w;
      size_t i = static_cast<size_t>(std::lower_bound(xs.begin(), xs.end(), lo, [](int64_t a, double b) { return a < b; }) - xs.begin());
      int64_t carried = i == 0 ? start : v[i - 1];
      int64_t mn = carried, mx = carried;
      for (; i < n && static_cast<double>(xs[i]) < hi + (c + 1 == cols ? 1e-9 : 0); ++i) mn = std::min(mn, v[i]), mx = std::max(mx, v[i]);
      double got_min = points[p].y, got_max = points[p].y;
      const double cx = points[p].x;
      while (p < points.size() && points[p].x == cx) got_min = std::min(got_min, points[p].y), got_max = std::max(got_max, points[p].y), ++p;
      ASSERT_EQ(got_min, static_cast<double>(mn)) << "column " << c;
      ASSERT_EQ(got_max, static_cast<double>(mx)) << "column " << c;
    }
    EXPECT_EQ(p, points.size());
  }
}

TEST(LodPyramid, EmptyAndDegenerateQueries) {
  std::vector<int64_t> v{5, 1, 9};
  std::vector<int64_t> xs{0, 1, 2};
  LodPyramid lod(v);
  EXPECT_TRUE(lod.query(xs, 0, 0, 0, 10).empty());
  EXPECT_TRUE(lod.query(xs, 0, 0, 10, 0).empty());
  auto before = lod.query(xs, 42, -10, -5, 4);  // entirely before the first point: the start value
  ASSERT_EQ(before.size(), 4u);
  for (const auto& p : before) EXPECT_EQ(p.y, 42);
  std::vector<int64_t> none;
  LodPyramid empty(none);
  auto flat = empty.query(none, 7, 0, 1, 3);
  ASSERT_EQ(flat.size(), 3u);
  EXPECT_EQ(flat[0].y, 7);
}

}  // namespace
}  // namespace sawtooth
