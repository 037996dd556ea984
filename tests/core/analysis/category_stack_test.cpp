// Stacked categories: every byte belongs to a band, so the stack's top is the allocated line.

#include <gtest/gtest.h>

#include "core/analysis/trace_analysis.h"
#include "core/io/trace_loader.h"
#include "tests/core/analysis_test_data.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

TEST(CategoryStack, TheTopLayerIsTheAllocatedSeries) {
  auto a = test::loadAnalysis(test::samplePath("anatomy.sawtooth"));
  const DeviceAnalysis* d = a->device(0);
  ASSERT_TRUE(d);
  ASSERT_FALSE(d->categories.empty());
  const auto& top = d->categories.cumulative[kCategoryCount - 1];
  ASSERT_EQ(top, d->series.allocated.value);
  EXPECT_EQ(d->categories.cumulative_start[kCategoryCount - 1], d->series.allocated.start);
}

TEST(CategoryStack, ColumnsReachTheAllocatedEnvelopeAndNeverCross) {
  // The anatomy sample drew a white gap below the allocated line: activations and temporaries
  // come and go within a pixel column, and separately decimated layers crossed each other.
  auto a = test::loadAnalysis(test::samplePath("anatomy.sawtooth"));
  const DeviceAnalysis* d = a->device(0);
  const SeriesAnalysis* alloc = d->line(SeriesKind::Allocated);
  for (bool by_time : {false, true})
    for (int columns : {200, 1500}) {
      const double x0 = a->xMin(by_time), x1 = a->xMax(by_time) + 1;
      const auto stack = d->categories.query(*d->series.allocator, by_time, x0, x1, columns);
      const auto line = alloc->lod.query(d->series.allocator->xs(by_time), d->series.allocated.start, x0, x1, columns);
      ASSERT_EQ(stack.x.size(), static_cast<size_t>(columns));
      // The allocated envelope's maximum per column.
      std::vector<double> highest;
      for (size_t i = 0; i < line.size(); ++i) {
        if (i > 0 && line[i].x == line[i - 1].x) highest.back() = std::max(highest.back(), line[i].y);
        else highest.push_back(line[i].y);
      }
      ASSERT_EQ(highest.size(), stack.x.size());
      for (size_t k = 0; k < stack.x.size(); ++k) {
        ASSERT_EQ(stack.top[kCategoryCount - 1][k], highest[k]) << "column " << k;
        for (size_t c = 1; c < kCategoryCount; ++c) ASSERT_GE(stack.top[c][k], stack.top[c - 1][k]) << "column " << k;
      }
    }
}

TEST(CategoryStack, ActivationsAndTemporariesAreInTheStack) {
  auto a = test::loadAnalysis(test::samplePath("anatomy.sawtooth"));
  const DeviceAnalysis* d = a->device(0);
  const auto& cum = d->categories.cumulative;
  int64_t activations = 0, temporaries = 0;
  const auto act = static_cast<size_t>(Category::Activation), tmp = static_cast<size_t>(Category::Temporary);
  for (size_t i = 0; i < cum[0].size(); ++i) {
    activations = std::max(activations, cum[act][i] - cum[act - 1][i]);
    temporaries = std::max(temporaries, cum[tmp][i] - cum[tmp - 1][i]);
  }
  EXPECT_GT(activations, 0);
  EXPECT_GT(temporaries, 0);
}

}  // namespace
}  // namespace sawtooth
