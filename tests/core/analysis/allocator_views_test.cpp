// The data the allocator views draw: the segment map at an event, the fragmentation lines'
// decimation, the flame graph's layout and zoom, the diff's top sites, the call-site tables, and
// the replay the views start from.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "core/analysis/allocator_history.h"
#include "core/analysis/allocator_replay.h"
#include "core/analysis/diff_top_sites.h"
#include "core/analysis/flame_layout.h"
#include "core/analysis/fragmentation_series.h"
#include "core/analysis/live_allocations.h"
#include "core/analysis/live_bytes.h"
#include "core/analysis/segment_map.h"
#include "core/analysis/site_tables.h"
#include "core/analysis/trace_diff.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

std::shared_ptr<const Trace> load(const std::string& name) {
  auto t = loadTrace(test::dataPath(name));
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return std::make_shared<const Trace>(t.ok() ? std::move(*t) : Trace{});
}

std::shared_ptr<const AllocatorHistory> history(const Trace& t, int16_t device = 0) {
  auto h = AllocatorHistory::build(t, device);
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
  return std::make_shared<const AllocatorHistory>(std::move(h.value()));
}

// Every segment is in exactly one group, groups add up to the state's figures.
TEST(SegmentMap, GroupsCoverEverySegmentOnce) {
  for (const char* name : {"synthetic_expandable_streams.pickle", "synthetic_window_streams.pickle", "anatomy_adam_snapshot.pickle"}) {
    SCOPED_TRACE(name);
    const auto t = load(name);
    const auto h = history(*t);
    const SegmentMap map = segmentMapAt(*t, *h, h->events().size() / 2);
    std::vector<size_t> seen;
    int64_t reserved = 0, allocated = 0, free_bytes = 0, largest = 0;
    for (const SegmentGroup& g : map.groups) {
      ASSERT_FALSE(g.segments.empty());
      for (size_t i : g.segments) {
        seen.push_back(i);
        EXPECT_EQ(map.state.segments[i].stream, g.stream);
        EXPECT_EQ(map.state.segments[i].small_pool, g.small_pool);
      }
      reserved += g.reserved;
      allocated += g.allocated;
      free_bytes += g.free_bytes;
      largest = std::max(largest, g.largest_free_block);
    }
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), map.state.segments.size());
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i);
    EXPECT_EQ(reserved, map.state.reserved);
    EXPECT_EQ(allocated, map.state.allocated_bytes);
    EXPECT_EQ(free_bytes, map.state.free_bytes);
    EXPECT_EQ(largest, map.state.largest_free_block);
    EXPECT_NE(map.headline.find("After allocator event"), std::string::npos);
    for (const SegmentView& s : map.state.segments) {
      for (const BlockView& b : s.blocks) {
        if (b.stack != kNoStack) {
          EXPECT_TRUE(map.sites.count(b.stack)) << b.stack;
        }
      }
    }
  }
}

TEST(SegmentMap, StreamsAndPoolsSplitIntoGroups) {
  const auto t = load("synthetic_expandable_streams.pickle");
  const auto h = history(*t);
  const SegmentMap map = segmentMapAt(*t, *h, static_cast<int64_t>(h->events().size()) - 1);
  std::vector<uint64_t> streams;
  for (const SegmentGroup& g : map.groups) streams.push_back(g.stream);
  std::sort(streams.begin(), streams.end());
  EXPECT_GE(std::unique(streams.begin(), streams.end()) - streams.begin(), 2);
  ASSERT_EQ(map.groups.size(), 4u);  // small and large pool on each of two streams
  EXPECT_FALSE(map.groups[0].small_pool);  // large pools first
  EXPECT_NE(map.groups[0].label.find("large pool"), std::string::npos);
}

TEST(SegmentMap, BlockKinds) {
  SegmentView whole;
  whole.blocks.push_back(BlockView{});
  EXPECT_EQ(blockKind(whole, whole.blocks[0]), BlockKind::FreeSegment);
  SegmentView split;
  split.blocks.resize(2);
  split.blocks[0].state = BlockState::ActiveAllocated;
  EXPECT_EQ(blockKind(split, split.blocks[0]), BlockKind::Allocated);
  EXPECT_EQ(blockKind(split, split.blocks[1]), BlockKind::InactiveSplit);
  split.blocks[1].state = BlockState::ActivePendingFree;
  EXPECT_EQ(blockKind(split, split.blocks[1]), BlockKind::PendingFree);
}

// At the out-of-memory event the map carries the explanation; elsewhere it does not.
TEST(SegmentMap, ExplainsTheOutOfMemory) {
  const auto t = load("oom_mlp_snapshot_protocol2.pickle.gz");
  const auto h = history(*t);
  int64_t oom = -1;
  for (size_t i = 0; i < h->events().size(); ++i)
    if (t->events.action()[h->events()[i]] == Action::Oom) oom = static_cast<int64_t>(i);
  ASSERT_GE(oom, 0);
  const SegmentMap at = segmentMapAt(*t, *h, oom);
  ASSERT_TRUE(at.oom.has_value());
  EXPECT_FALSE(at.oom->summary.empty());
  EXPECT_NE(at.headline.find("oom"), std::string::npos) << at.headline;
  EXPECT_FALSE(segmentMapAt(*t, *h, oom - 1).oom.has_value());
  EXPECT_EQ(segmentMapAt(*t, *h, -5).state.position, -1);  // clamped
}

// The decimated lines hold exactly the series' extremes over any range, at every column count.
TEST(FragmentationSeries, ColumnsKeepTheEnvelope) {
  const auto t = load("anatomy_adam_snapshot.pickle");
  const auto h = history(*t);
  const FragmentationSeries f(t, h);
  ASSERT_GT(f.events(), 100u);
  for (bool by_time : {false, true}) {
    for (int line = 0; line < FragmentationSeries::kLines; ++line) {
      const EventSeries& s = f.values(line);
      const int64_t p0 = static_cast<int64_t>(f.events() / 4), p1 = static_cast<int64_t>(f.events() * 3 / 4);
      const double x0 = f.xOf(p0, by_time), x1 = f.xOf(p1, by_time);
      int64_t lo = s.after(f.positionAt(x0, by_time)), hi = lo;
      for (int64_t p = f.positionAt(x0, by_time) + 1; p < static_cast<int64_t>(f.events()) && f.xOf(p, by_time) < x1; ++p) {
        lo = std::min(lo, s.values[static_cast<size_t>(p)]);
        hi = std::max(hi, s.values[static_cast<size_t>(p)]);
      }
      for (int columns : {1, 7, 200, 5000}) {
        const auto pts = f.query(line, by_time, x0, x1, columns);
        ASSERT_FALSE(pts.empty());
        double qlo = pts[0].y, qhi = pts[0].y;
        for (const LodPoint& p : pts) {
          qlo = std::min(qlo, p.y);
          qhi = std::max(qhi, p.y);
          EXPECT_GE(p.x, x0);
          EXPECT_LE(p.x, x1);
        }
        EXPECT_EQ(qlo, static_cast<double>(lo)) << line << " " << columns;
        EXPECT_EQ(qhi, static_cast<double>(hi)) << line << " " << columns;
        EXPECT_LE(pts.size(), static_cast<size_t>(3 * columns + 2));
      }
    }
  }
  // The last event at or before a time (events may share a time stamp).
  const int64_t at = f.positionAt(f.xOf(10, true), true);
  EXPECT_GE(at, 10);
  EXPECT_EQ(f.xOf(at, true), f.xOf(10, true));
  EXPECT_LT(f.xOf(10, true), f.xOf(at + 1, true));
  EXPECT_EQ(f.positionAt(10.7, false), 10);
  EXPECT_EQ(f.positionAt(-1e18, true), -1);
}

FlameGraph smallGraph() {
  // (all) 100: a 60 (b 40, c 20), d 40 (e 1)
  FlameGraph g;
  auto add = [&](const char* label, int64_t bytes, uint32_t parent) {
    g.nodes.push_back(FlameNode{0, label, bytes, 0, 1, parent, {}});
    const auto id = static_cast<uint32_t>(g.nodes.size() - 1);
    if (parent != UINT32_MAX) g.nodes[parent].children.push_back(id);
    return id;
  };
  const uint32_t root = add("(all)", 100, UINT32_MAX);
  const uint32_t a = add("a", 60, root);
  add("b", 40, a);
  add("c", 20, a);
  const uint32_t d = add("d", 40, root);
  add("e", 1, d);
  return g;
}

TEST(FlameLayout, WidthsAreSharesOfTheFocus) {
  const FlameGraph g = smallGraph();
  const auto rects = layoutFlame(g);
  ASSERT_EQ(rects.size(), 6u);
  EXPECT_EQ(flameDepth(rects), 3);
  auto find = [&](const std::vector<FlameRect>& rs, const std::string& label) {
    for (const FlameRect& r : rs)
      if (g.nodes[r.node].label == label) return r;
    return FlameRect{UINT32_MAX, -1, -1, -1};
  };
  EXPECT_DOUBLE_EQ(find(rects, "a").width, 0.6);
  EXPECT_DOUBLE_EQ(find(rects, "d").x, 0.6);
  EXPECT_DOUBLE_EQ(find(rects, "c").x, 0.4);
  EXPECT_EQ(find(rects, "c").depth, 2);
  // A pixel of 2 % leaves out e (1 %).
  EXPECT_EQ(find(layoutFlame(g, 0, 0.02), "e").depth, -1);
  // Zoomed on a: the root above it full width, a full width, b and c as shares of a.
  const auto zoomed = layoutFlame(g, 1);
  EXPECT_TRUE(find(zoomed, "(all)").ancestor);
  EXPECT_DOUBLE_EQ(find(zoomed, "a").width, 1.0);
  EXPECT_FALSE(find(zoomed, "a").ancestor);
  EXPECT_NEAR(find(zoomed, "b").width, 40.0 / 60.0, 1e-12);
  EXPECT_EQ(find(zoomed, "d").depth, -1);
  EXPECT_EQ(flamePath(g, 2), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(DiffTopSites, LargestChangesInGrowthOrder) {
  TraceDiff d;
  auto row = [&](const char* site, int64_t a, int64_t b) {
    DiffRow r;
    r.site = site;
    r.a_bytes = a;
    r.b_bytes = b;
    d.rows.push_back(r);
  };
  row("grew a lot", 0, 100);
  row("grew", 10, 20);
  row("same", 50, 50);
  row("shrank a bit", 10, 5);
  row("shrank a lot", 200, 0);
  const auto top = topChangedRows(d, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(d.rows[top[0]].site, "grew a lot");
  EXPECT_EQ(d.rows[top[1]].site, "grew");
  EXPECT_EQ(d.rows[top[2]].site, "shrank a lot");
  EXPECT_EQ(topChangedRows(d, 10).size(), 4u);  // "same" never shows
}

// The graph, the table and the headline hold the same bytes: the peak's, or the chosen event's.
TEST(LiveBytes, GraphTableAndHeadlineAgree) {
  const auto t = load("anatomy_adam_snapshot.pickle");
  const LiveBytes peak = liveBytesAt(*t, 0);
  EXPECT_TRUE(peak.at_peak);
  EXPECT_EQ(peak.total, scopePeak(*t, 0).bytes);
  EXPECT_EQ(peak.flame.nodes[0].bytes, peak.total);
  int64_t rows = 0;
  for (const SiteRow& r : peak.sites) rows += r.bytes;
  EXPECT_EQ(rows, peak.total);
  EXPECT_NE(peak.headline.find("Live at the peak"), std::string::npos);
  const LiveBytes early = liveBytesAt(*t, 0, 3);
  EXPECT_FALSE(early.at_peak);
  EXPECT_EQ(early.position, 3);
  EXPECT_EQ(early.total, liveAllocationsAt(*t, 0, 3).total);
}

// The live-bytes table is the rows' raw numbers with units: sums to the peak, no formatted text.
TEST(SiteTables, LiveTableHoldsTheRowsRawNumbers) {
  const auto t = load("anatomy_adam_snapshot.pickle");
  const LiveBytes peak = liveBytesAt(*t, 0);
  const Table& table = peak.table;
  ASSERT_EQ(table.rowCount(), peak.sites.size());
  ASSERT_EQ(table.columns[2].name, "live");
  EXPECT_EQ(csvHeader(table.columns[2]), "live (bytes)");
  ASSERT_EQ(table.columns[3].name, "share");
  double sum = 0, shares = 0;
  for (size_t r = 0; r < table.rowCount(); ++r) {
    ASSERT_NE(table.at(r, 2).number(), nullptr);
    sum += *table.at(r, 2).number();
    shares += *table.at(r, 3).number();
    EXPECT_EQ(*table.at(r, 0).text(), peak.sites[r].site);
    EXPECT_EQ(*table.at(r, 4).number(), static_cast<double>(peak.sites[r].count));
  }
  EXPECT_EQ(static_cast<int64_t>(sum), peak.total);
  // Each site's share of what lives there: the shares make the whole.
  EXPECT_NEAR(shares, 1.0, 1e-9);
  EXPECT_EQ(displayText(Cell(0.25), Unit::Share), "25.0 %");
  EXPECT_EQ(csvHeader(table.columns[3]), "share (fraction)");
  // The same numbers written as CSV: integers, never "572.5 MB".
  EXPECT_EQ(csvValue(table.at(0, 2), Unit::Bytes), std::to_string(peak.sites[0].bytes));
}

TEST(SiteTables, DiffTableSumsToEachPeakAndChartsTheLargestChanges) {
  const auto a = load("synthetic_window_streams.pickle");
  const auto b = load("synthetic_expandable_streams.pickle");
  auto diff = diffTraces(*a, "a", *b, "b");
  ASSERT_TRUE(diff.ok()) << diff.error().message;
  const size_t rows = diff->rows.size();
  const int64_t peak_a = diff->a.peak_allocated_bytes, peak_b = diff->b.peak_allocated_bytes;
  const CallSiteDiff view = callSiteDiff(std::move(*diff), 15);
  ASSERT_EQ(view.table.rowCount(), rows);
  double sum_a = 0, sum_b = 0;
  for (size_t r = 0; r < rows; ++r) {
    sum_a += *view.table.at(r, 2).number();
    sum_b += *view.table.at(r, 3).number();
    EXPECT_EQ(*view.table.at(r, 4).number(), static_cast<double>(view.diff.rows[r].growth()));
  }
  EXPECT_EQ(static_cast<int64_t>(sum_a), peak_a);
  EXPECT_EQ(static_cast<int64_t>(sum_b), peak_b);
  EXPECT_EQ(view.top_rows, topChangedRows(view.diff, 15));
  EXPECT_EQ(csvHeader(view.table.columns[4]), "change (bytes)");
}

// The replay opens at the first out-of-memory event, else at the peak; the cursor's trace event
// maps to the last allocator event at or before it.
TEST(AllocatorReplay, OpensAtTheOutOfMemoryElseThePeak) {
  const auto oom = load("oom_mlp_snapshot_protocol2.pickle.gz");
  const DeviceId device = largestPeakDevice(*oom);
  // The app asks the analysis (no pass over the events on the GUI thread): the same device.
  EXPECT_EQ(largestPeakDevice(TraceAnalysis(oom)), device);
  const auto ranks = load("synthetic_window_streams.pickle");
  EXPECT_EQ(largestPeakDevice(TraceAnalysis(ranks)), largestPeakDevice(*ranks));
  auto r = replayAllocator(oom, device);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_GE(r->open_at, 0);
  EXPECT_EQ(oom->events.action()[r->history->events()[static_cast<size_t>(r->open_at)]], Action::Oom);
  EXPECT_EQ(r->fragmentation->events(), r->history->events().size());

  const auto t = load("anatomy_adam_snapshot.pickle");
  auto peak = replayAllocator(t, largestPeakDevice(*t));
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->open_at, peak->history->report().peak_position);
  const auto& events = peak->history->events();
  EXPECT_EQ(allocatorPositionAt(*peak->history, events[7]), 7);
  // Between two allocator events (other devices' or non-allocator events): the earlier one.
  if (events[8] > events[7] + 1) {
    EXPECT_EQ(allocatorPositionAt(*peak->history, events[7] + 1), 7);
  }
  if (events[0] > 0) {
    EXPECT_EQ(allocatorPositionAt(*peak->history, 0), -1);
  }
  EXPECT_EQ(allocatorPositionAt(*peak->history, events.back() + 1000), static_cast<int64_t>(events.size()) - 1);
}

TEST(AllocatorReplay, ATraceWithoutSegmentsIsAnError) {
  const auto t = load("anatomy_adam_profiler_trace.json.gz");
  EXPECT_FALSE(replayAllocator(t, largestPeakDevice(*t)).ok());
}

}  // namespace
}  // namespace sawtooth
