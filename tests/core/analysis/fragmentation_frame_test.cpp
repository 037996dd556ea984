// The fragmentation chart of a trace read on demand (fragmentation_frame.h): the series the
// summaries keep are the allocator replay's own (allocator_history.h) at every leaf's end, their
// extremes are its extremes, and a file from before them opens without the chart and checks as
// agreeing with its events.

#include <gtest/gtest.h>

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>

#include "core/analysis/allocator_history.h"
#include "core/analysis/fragmentation_frame.h"
#include "core/analysis/fragmentation_series.h"
#include "core/analysis/summary_source.h"
#include "core/io/native_format.h"
#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"
#include "core/io/trace_loader.h"
#include "tests/core/sqlite_edit.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

using summary::kExternalFragmentation;
using summary::kLargestFreeBlock;
using summary::kReservedMinusAllocated;

// Every figure the chart draws from `model` against the replay of the trace read whole.
void expectTheReplays(TimelineModel& model, const Trace& trace, DeviceId device, const std::string& what) {
  auto history = AllocatorHistory::build(trace, static_cast<int16_t>(device));
  ASSERT_TRUE(history.ok()) << what;
  const AllocatorSeries& exact = history->series();
  const std::pair<int, const EventSeries*> lines[] = {{kReservedMinusAllocated, &exact.reserved_minus_allocated},
                                                      {kExternalFragmentation, &exact.external_fragmentation},
                                                      {kLargestFreeBlock, &exact.largest_free_block}};
  const TimelineModel::Device* d = model.device(device);
  ASSERT_TRUE(d) << what;
  const int64_t n = d->allocator_points;
  ASSERT_EQ(static_cast<size_t>(n), exact.allocated_bytes.values.size()) << what;
  int64_t top = 0;
  for (const auto& [series, values] : lines) {
    const summary::SeriesRow* row = d->find(series);
    ASSERT_TRUE(row) << what << ": series " << series;
    EXPECT_EQ(row->start, values->start) << what << ": series " << series;
    EXPECT_EQ(row->points, n);
    // Each leaf's end, and the last point: exactly the replay's.
    for (int64_t p = summary::kLeafPoints - 1; p < n; p += summary::kLeafPoints) {
      auto v = model.valueAfter(device, series, p);
      ASSERT_TRUE(v.ok());
      ASSERT_EQ(*v, values->after(p)) << what << ": series " << series << " point " << p;
    }
    auto last = model.valueAfter(device, series, n - 1);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(*last, values->after(n - 1)) << what;
    top = std::max({top, values->start, *std::max_element(values->values.begin(), values->values.end())});
  }
  auto extent = fragmentationExtent(model, device);
  ASSERT_TRUE(extent.ok());
  ASSERT_TRUE(extent->has_value()) << what;
  EXPECT_EQ((*extent)->max_value, top) << what;
  EXPECT_EQ((*extent)->points, n);
  // The whole extent drawn: each line's extremes are the replay's.
  for (bool by_time : {false, true}) {
    FragmentationRequest request{1, device, by_time, (*extent)->xMin(by_time), (*extent)->xMax(by_time) + 1, 640};
    auto frame = fragmentationFrame(model, request);
    ASSERT_TRUE(frame.ok()) << frame.error().message;
    for (size_t k = 0; k < 3; ++k) {
      const auto& values = *lines[k].second;
      ASSERT_FALSE(frame->lines[k].empty());
      double lo = frame->lines[k][0].y, hi = lo;
      for (const LodPoint& p : frame->lines[k]) {
        lo = std::min(lo, p.y);
        hi = std::max(hi, p.y);
      }
      EXPECT_EQ(hi, static_cast<double>(std::max(values.start, *std::max_element(values.values.begin(), values.values.end()))))
          << what << (by_time ? " by time" : " by event") << ": line " << k;
      EXPECT_EQ(lo, static_cast<double>(std::min(values.start, *std::min_element(values.values.begin(), values.values.end()))))
          << what << (by_time ? " by time" : " by event") << ": line " << k;
    }
  }
  // At event level, given the tables: replayed from the nearest stored state, the whole trace's
  // drawing exactly (FragmentationSeries over the trace read whole).
  auto whole = std::make_shared<const Trace>(trace);
  auto replay = std::make_shared<const AllocatorHistory>(std::move(*history));
  const FragmentationSeries in_memory(whole, replay);
  for (bool by_time : {false, true}) {
    for (auto [a, b, columns] : {std::tuple{n / 5, n / 5 + 300, 64}, std::tuple{int64_t{0}, std::min<int64_t>(n - 1, 500), 200},
                                 std::tuple{std::max<int64_t>(0, n - 200), n - 1, 100}}) {
      const double x0 = in_memory.xOf(a, by_time), x1 = in_memory.xOf(b, by_time) + 0.5;
      FragmentationRequest request{2, device, by_time, x0, x1, columns};
      auto frame = fragmentationFrame(model, request, &trace);
      ASSERT_TRUE(frame.ok()) << frame.error().message;
      for (int k = 0; k < 3; ++k) {
        const auto want = in_memory.query(k, by_time, x0, x1, columns);
        const auto& got = frame->lines[static_cast<size_t>(k)];
        ASSERT_EQ(got.size(), want.size()) << what << (by_time ? " by time" : " by event") << " [" << a << ", " << b << "] line " << k;
        for (size_t i = 0; i < want.size(); ++i) {
          EXPECT_DOUBLE_EQ(got[i].x, want[i].x);
          ASSERT_DOUBLE_EQ(got[i].y, want[i].y) << what << " line " << k << " point " << i;
        }
      }
    }
  }
  // A click: the allocator event at or before x, by event and by time.
  for (int64_t p : {int64_t{0}, n / 3, n - 1}) {
    auto at = fragmentationPositionAt(model, device, static_cast<double>(p), false);
    ASSERT_TRUE(at.ok());
    EXPECT_EQ(*at, p);
    auto t = model.timeOfPoint(device, p);
    ASSERT_TRUE(t.ok());
    auto by_time = fragmentationPositionAt(model, device, static_cast<double>(*t), true);
    ASSERT_TRUE(by_time.ok());
    auto t_found = model.timeOfPoint(device, *by_time);
    ASSERT_TRUE(t_found.ok());
    EXPECT_EQ(*t_found, *t) << what << ": point " << p;  // the last of the points at that time
    EXPECT_GE(*by_time, p);
  }
}

TEST(FragmentationFrame, TheSummariesSeriesAreTheAllocatorReplays) {
  for (const char* name : {"h200_allocator_expandable.pickle", "synthetic_expandable_streams.pickle",
                           "oom_mlp_snapshot_protocol2.pickle.gz", "h200_allocator_roundup.pickle"}) {
    auto trace = loadTrace(test::dataPath(name));
    ASSERT_TRUE(trace.ok()) << name;
    auto source = summary::MemorySource::build(*trace);
    ASSERT_TRUE(source.ok());
    TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*source)));
    ASSERT_TRUE(model.refresh().ok());
    for (DeviceId device : trace->deviceIds())
      if (device >= 0) expectTheReplays(model, *trace, device, std::string(name) + " in memory");
    // The same from the file.
    const std::string path = test::tempPath(std::string("fragmentation-") + name + ".sawtooth");
    ASSERT_TRUE(writeNative(*trace, path).ok());
    auto place = summariesOf(path);
    ASSERT_TRUE(place.ok());
    auto file = native::FileSummarySource::open(*place);
    ASSERT_TRUE(file.ok()) << file.error().message;
    TimelineModel from_file(std::shared_ptr<summary::SummarySource>(std::move(*file)));
    ASSERT_TRUE(from_file.refresh().ok());
    for (DeviceId device : trace->deviceIds())
      if (device >= 0) expectTheReplays(from_file, *trace, device, std::string(name) + " from its file");
  }
}

TEST(FragmentationFrame, ADeviceWithoutSegmentsHasNoChartAsTheTraceReadWholeHasNone) {
  Trace t;
  t.devices.push_back(DeviceInfo{0});
  for (int i = 0; i < 300; ++i) {
    Event alloc;
    alloc.t_ns = 2 * i;
    alloc.addr = 0x1000 + 512 * static_cast<uint64_t>(i % 7);
    alloc.size = 512;
    t.events.push(alloc);
    Event free = alloc;
    free.t_ns = 2 * i + 1;
    free.action = Action::FreeCompleted;
    t.events.push(free);
  }
  auto source = summary::MemorySource::build(t);
  ASSERT_TRUE(source.ok());
  TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  ASSERT_TRUE(model.refresh().ok());
  ASSERT_TRUE(model.device(0));
  auto extent = fragmentationExtent(model, 0);
  ASSERT_TRUE(extent.ok()) << extent.error().message;
  EXPECT_FALSE(extent->has_value());
  EXPECT_FALSE(AllocatorHistory::build(t, 0).ok());  // the trace read whole: no replay, no chart
}

TEST(FragmentationFrame, AFileFromBeforeTheSeriesOpensWithoutTheChartAndAgreesWithItsEvents) {
  auto trace = loadTrace(test::dataPath("h200_allocator_expandable.pickle"));
  ASSERT_TRUE(trace.ok());
  const std::string path = test::tempPath("fragmentation-older.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  test::execSql(path, "DELETE FROM summary_series WHERE series BETWEEN 6 AND 8; DELETE FROM summary_nodes WHERE series BETWEEN 6 AND 8");
  auto place = summariesOf(path);
  ASSERT_TRUE(place.ok());
  auto verdict = verifySummaries(*place);
  ASSERT_TRUE(verdict.ok()) << verdict.error().message;
  EXPECT_TRUE(verdict->check.agree()) << (verdict->check.first_differences.empty() ? "" : verdict->check.first_differences[0]);
  auto file = native::FileSummarySource::open(*place);
  ASSERT_TRUE(file.ok());
  TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*file)));
  ASSERT_TRUE(model.refresh().ok());
  auto extent = fragmentationExtent(model, 0);
  ASSERT_TRUE(extent.ok());
  EXPECT_FALSE(extent->has_value());
  // One node lost of a file that has them: the check finds it.
  const std::string lost = test::tempPath("fragmentation-lost.sawtooth");
  ASSERT_TRUE(writeNative(*trace, lost).ok());
  test::execSql(lost, "DELETE FROM summary_nodes WHERE series = 7 AND level = 0 AND node = 1");
  auto lost_place = summariesOf(lost);
  ASSERT_TRUE(lost_place.ok());
  auto lost_verdict = verifySummaries(*lost_place);
  ASSERT_TRUE(lost_verdict.ok());
  EXPECT_FALSE(lost_verdict->check.agree());
}

}  // namespace
}  // namespace sawtooth
