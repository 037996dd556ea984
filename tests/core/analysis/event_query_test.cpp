// Filtering and sorting the events table: an index permutation computed off the GUI thread.

#include <gtest/gtest.h>

#include <numeric>

#include "core/analysis/event_query.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

const Trace& anatomy() {
  static const Trace t = *loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  return t;
}

std::vector<uint64_t> rowsOf(const Trace& t, const std::string& filter, EventColumn sort = EventColumn::Index,
                             bool descending = false) {
  auto r = selectEvents(t, EventQuery{filter, sort, descending});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  std::vector<uint64_t> out;
  if (r.ok())
    for (size_t i = 0; i < r->size(); ++i) out.push_back(r->eventAt(i));
  return out;
}

TEST(EventQuery, NoFilterNoSortStoresNothing) {
  auto r = selectEvents(anatomy(), EventQuery{});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rows, nullptr);
  EXPECT_EQ(r->size(), 352u);
  EXPECT_EQ(r->eventAt(7), 7u);
  EXPECT_EQ(r->rowOf(351), 351);
  EXPECT_EQ(r->rowOf(352), -1);
}

TEST(EventQuery, AWordMatchesAWholeField) {
  const Trace& t = anatomy();
  size_t allocs = 0;
  for (Action a : t.events.action()) allocs += a == Action::Alloc;
  // "alloc" is the action alloc — not every event because their source reads "allocator".
  const auto rows = rowsOf(t, "alloc");
  EXPECT_EQ(rows.size(), allocs);
  EXPECT_LT(rows.size(), t.events.size());
  for (uint64_t i : rows) EXPECT_EQ(t.events.action()[i], Action::Alloc);
  EXPECT_EQ(rowsOf(t, "allocator").size(), t.events.size());  // the source, whole
  EXPECT_EQ(rowsOf(t, "action:alloc"), rows);
  EXPECT_EQ(rowsOf(t, "ALLOC"), rows);  // case-insensitive
  EXPECT_EQ(rowsOf(t, "segment_alloc").size(), 1u);
  // Wildcards widen a word on purpose: every action with "alloc" in it.
  EXPECT_GT(rowsOf(t, "action:*alloc*").size(), rows.size());
}

TEST(EventQuery, PhasesFramesDevicesAndSizes) {
  const Trace& t = anatomy();
  const auto in_step = rowsOf(t, "phase:Optimizer.step#Adam.step");
  ASSERT_FALSE(in_step.empty());
  for (uint64_t i : in_step) EXPECT_EQ(t.phases[t.events.phase()[i]].name, "Optimizer.step#Adam.step");
  EXPECT_EQ(rowsOf(t, "optimizer.step*"), in_step);
  EXPECT_TRUE(rowsOf(t, "optimizer.step").empty());  // a word is the whole name
  EXPECT_FALSE(rowsOf(t, "linear.py").empty());       // a frame's file name
  EXPECT_FALSE(rowsOf(t, "frame:forward").empty());   // a frame's function name
  EXPECT_EQ(rowsOf(t, "device:cuda:0").size(), t.events.size());
  EXPECT_EQ(rowsOf(t, "cuda:0").size(), t.events.size());
  EXPECT_TRUE(rowsOf(t, "device:cpu").empty());
  size_t big = 0;
  for (int64_t s : t.events.sizes()) big += s >= 16000000;
  EXPECT_EQ(rowsOf(t, "size>=16MB").size(), big);
  const auto freed_big = rowsOf(t, "free_completed size>=16MB");
  EXPECT_LT(freed_big.size(), big);
  for (uint64_t i : freed_big) EXPECT_EQ(t.events.action()[i], Action::FreeCompleted);
}

TEST(EventQuery, SortsStablyInEitherDirection) {
  const Trace& t = anatomy();
  const auto& size = t.events.sizes();
  const auto desc = rowsOf(t, "", EventColumn::Size, true);
  ASSERT_EQ(desc.size(), t.events.size());
  EXPECT_EQ(size[desc[0]], *std::max_element(size.begin(), size.end()));
  for (size_t r = 1; r < desc.size(); ++r) {
    ASSERT_GE(size[desc[r - 1]], size[desc[r]]);
    if (size[desc[r - 1]] == size[desc[r]]) {
      ASSERT_LT(desc[r - 1], desc[r]);  // ties in event order
    }
  }
  const auto asc = rowsOf(t, "free_completed", EventColumn::Size, false);
  for (size_t r = 1; r < asc.size(); ++r) ASSERT_LE(size[asc[r - 1]], size[asc[r]]);
  const auto by_action = rowsOf(t, "", EventColumn::Action);
  for (size_t r = 1; r < by_action.size(); ++r)
    ASSERT_LE(name(t.events.action()[by_action[r - 1]]), name(t.events.action()[by_action[r]]));
  const auto reversed = rowsOf(t, "", EventColumn::Index, true);
  EXPECT_EQ(reversed.front(), 351u);
  EXPECT_EQ(reversed.back(), 0u);
}

TEST(EventQuery, BadFiltersSayWhy) {
  auto r = selectEvents(anatomy(), EventQuery{"size>=lots"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "'lots' is not a size (try size>=1MB)");
  EXPECT_FALSE(parseEventFilter("phase:"));
  EXPECT_TRUE(parseEventFilter("at::matmul linear.py:125 size<4096"));
}

TEST(EventQuery, Cancelled) {
  std::atomic<bool> cancel{true};
  Progress progress([](int) {}, &cancel);
  auto r = selectEvents(anatomy(), EventQuery{"alloc"}, &progress);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cancelled");
}

TEST(EventQuery, Globs) {
  EXPECT_TRUE(globMatch("alloc", "ALLOC"));
  EXPECT_FALSE(globMatch("alloc", "allocator"));
  EXPECT_TRUE(globMatch("*linear*", "torch/nn/modules/Linear.py"));
  EXPECT_TRUE(globMatch("a?c", "abc"));
  EXPECT_FALSE(globMatch("a?c", "ac"));
  EXPECT_TRUE(globMatch("*", ""));
  EXPECT_TRUE(globMatch("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(globMatch("a*b*c", "aXXbYY"));
}

TEST(EventQuery, ByteSizes) {
  EXPECT_EQ(parseFilterByteSize("1.5MB"), 1500000);
  EXPECT_EQ(parseFilterByteSize("2 GiB"), 2147483648);
  EXPECT_EQ(parseFilterByteSize("4096"), 4096);
  EXPECT_EQ(parseFilterByteSize("1kb"), 1000);
  EXPECT_FALSE(parseFilterByteSize("MB"));
  EXPECT_FALSE(parseFilterByteSize("-1MB"));
  EXPECT_FALSE(parseFilterByteSize("1 XB"));
  EXPECT_FALSE(parseFilterByteSize("1e30"));
}

}  // namespace
}  // namespace sawtooth
