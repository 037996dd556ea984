#include <gtest/gtest.h>

#include "core/analysis/category_series.h"
#include "core/analysis/peaks.h"
#include "core/analysis/series.h"

namespace sawtooth {
namespace {

Event ev(int64_t t, Action a, int64_t size, Source s = Source::Allocator, DeviceId device = 0,
         Category c = Category::Unknown) {
  Event e;
  e.t_ns = t;
  e.action = a;
  e.size = size;
  e.source = s;
  e.device = device;
  e.category = c;
  return e;
}

TEST(Series, AllocatedAndReservedFollowTheDefinitions) {
  Trace t;
  t.deviceInfo(0).baseline_allocated = 100;
  t.deviceInfo(0).baseline_reserved = 1000;
  t.events.push(ev(1, Action::SegmentAlloc, 2000));
  t.events.push(ev(2, Action::Alloc, 50));
  t.events.push(ev(3, Action::FreeRequested, 50));  // not yet freed
  t.events.push(ev(4, Action::Alloc, 7, Source::Allocator, 1));  // other device
  t.events.push(ev(5, Action::FreeCompleted, 50));
  t.events.push(ev(6, Action::SegmentUnmap, 500));
  const DeviceSeries s = buildDeviceSeries(t, 0);
  EXPECT_EQ(s.allocated.start, 100);
  EXPECT_EQ(s.allocated.value, (std::vector<int64_t>{100, 150, 150, 100, 100}));
  EXPECT_EQ(s.reserved.value, (std::vector<int64_t>{3000, 3000, 3000, 3000, 2500}));
  // Allocated and reserved share one axis, on which a point's index is its position.
  EXPECT_EQ(s.allocated.axis, s.allocator);
  EXPECT_EQ(s.reserved.axis, s.allocator);
  EXPECT_TRUE(s.allocator->x_index.empty());
  EXPECT_EQ(s.allocator->index(3), 3);
  EXPECT_EQ(s.allocator->event, (std::vector<uint64_t>{0, 1, 2, 4, 5}));
  EXPECT_EQ(s.allocated.valueAfterEvent(3), 150);  // the other device's event: the value in force
  EXPECT_EQ(s.allocated.valueAfterEvent(4), 100);
  EXPECT_EQ(s.indexOfEvent(4), 3);
  EXPECT_EQ(s.indexAtTime(5), 3);  // allocator events before t = 5
  const Peak p = findPeak(s.allocated);
  EXPECT_EQ(p.value, 150);
  EXPECT_EQ(p.point, 1);
  EXPECT_EQ(p.event, 1u);
  EXPECT_FALSE(s.driver.has_value());
}

TEST(Series, PeakAtTheStartIsMinusOne) {
  Trace t;
  t.deviceInfo(0).baseline_allocated = 500;
  t.events.push(ev(1, Action::FreeCompleted, 100));
  const Peak p = findPeak(buildDeviceSeries(t, 0).allocated);
  EXPECT_EQ(p.value, 500);
  EXPECT_EQ(p.point, -1);
  EXPECT_EQ(p.x_index, -1);
}

TEST(Series, DriverAndDeviceUsedLandOnTheIndexAxis) {
  Trace t;
  t.events.push(ev(1, Action::Alloc, 10));
  t.events.push(ev(2, Action::Alloc, 1 << 20, Source::Driver));
  t.events.push(ev(3, Action::Alloc, 10));
  t.events.push(ev(4, Action::Sample, 5 << 20, Source::Sample));
  t.events.push(ev(5, Action::FreeCompleted, 1 << 20, Source::Driver));
  const DeviceSeries s = buildDeviceSeries(t, 0);
  ASSERT_TRUE(s.driver.has_value());
  ASSERT_TRUE(s.device_used.has_value());
  EXPECT_EQ(s.driver->value, (std::vector<int64_t>{1 << 20, 0}));
  EXPECT_EQ(s.driver->axis->x_index, (std::vector<int64_t>{0, 1}));
  EXPECT_NE(s.driver->axis, s.allocator);
  EXPECT_EQ(s.device_used->value, (std::vector<int64_t>{5 << 20}));
  EXPECT_EQ(s.allocated.size(), 2u);
}

TEST(Series, AllocatorAxisCostsSixteenBytesAPointAndEachSeriesEight) {
  Trace t;
  for (int i = 0; i < 1000; ++i) t.events.push(ev(i, i % 2 ? Action::FreeCompleted : Action::Alloc, 64));
  DeviceSeries s = buildDeviceSeries(t, 0);
  // t_ns and the event once for both series, then one value each: 32 bytes an allocator event
  // where a copy of the axis per series took 72.
  EXPECT_EQ(s.bytesResident(), 1000u * (8 + 8 + 8 + 8));
}

TEST(CategoryPeaks, EachCategoryPeaksOnItsOwn) {
  Trace t;
  t.events.push(ev(1, Action::Alloc, 400, Source::Allocator, 0, Category::Parameter));
  t.events.push(ev(2, Action::Alloc, 30, Source::Allocator, 0, Category::Activation));
  t.events.push(ev(3, Action::FreeCompleted, 30, Source::Allocator, 0, Category::Activation));
  t.events.push(ev(4, Action::Alloc, 20, Source::Allocator, 0, Category::Activation));
  const CategoryPeaks p = categoryPeaks(t, 0);
  EXPECT_TRUE(p.any_categorised);
  EXPECT_EQ(p.peak[static_cast<size_t>(Category::Parameter)], 400);
  EXPECT_EQ(p.peak[static_cast<size_t>(Category::Activation)], 30);
  EXPECT_EQ(p.peak[static_cast<size_t>(Category::Gradient)], 0);
}

}  // namespace
}  // namespace sawtooth
