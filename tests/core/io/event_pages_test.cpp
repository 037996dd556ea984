// The events table of a file read a page at a time (io/event_pages.h): every query gives the rows
// the in-memory table gives for the same file, in the same order, page by page.

#include <gtest/gtest.h>

#include <atomic>

#include <sqlite3.h>

#include "core/io/event_pages.h"
#include "core/io/native_format.h"
#include "core/io/trace_loader.h"
#include "tests/core/sqlite_edit.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

// A trace of more rows than one anchor stride, so that pages start from anchors past the first.
Trace longTrace() {
  Trace t;
  t.deviceInfo(0);
  t.deviceInfo(1);
  int64_t now = 0;
  for (int i = 0; i < 3000; ++i) {
    Event e;
    e.t_ns = now += 100;
    e.device = static_cast<DeviceId>(i % 3 == 0 ? 1 : 0);
    e.action = Action::Alloc;
    e.size = (i % 7 == 0) ? (2 << 20) : 512;
    e.addr = 0x1000 + static_cast<uint64_t>(i) * 0x1000;
    t.events.push(e);
    e.t_ns = now += 100;
    e.action = Action::FreeCompleted;
    t.events.push(e);
  }
  return t;
}

// Every row of `rows`, read `step` rows a page.
struct Row {
  uint64_t index;
  Event event;
  std::string phase;
};
std::vector<Row> everyRow(const EventPages& pages, const EventPageRows& rows, size_t step) {
  std::vector<Row> out;
  for (uint64_t first = 0; first < rows.size; first += step) {
    auto page = pages.page(rows, first, step);
    EXPECT_TRUE(page.ok()) << (page.ok() ? "" : page.error().message);
    if (!page.ok()) break;
    EXPECT_EQ(page->first_row, first);
    EXPECT_EQ(page->index.size(), std::min<uint64_t>(step, rows.size - first));
    EXPECT_EQ(page->phase_names.size(), page->index.size());
    for (size_t i = 0; i < page->index.size(); ++i)
      out.push_back(Row{page->index[i], page->events.at(i), page->phase_names[i]});
  }
  return out;
}

void expectSameRows(const std::string& path, const std::vector<std::string>& filters,
                    const std::vector<EventColumn>& sorts = {EventColumn::Index}) {
  auto whole = loadTrace(path);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  auto pages = EventPages::open(path);
  ASSERT_TRUE(pages.ok()) << pages.error().message;
  EXPECT_EQ((*pages)->events(), whole->events.size());
  for (const std::string& filter : filters)
    for (EventColumn sort : sorts)
    for (bool descending : {false, true}) {
      const EventQuery query{filter, sort, descending};
      auto want = selectEvents(*whole, query);
      ASSERT_TRUE(want.ok()) << filter;
      auto rows = (*pages)->select(query);
      ASSERT_TRUE(rows.ok()) << filter << ": " << rows.error().message;
      ASSERT_EQ(rows->size, want->size()) << path << " '" << filter << "' by column " << static_cast<int>(sort)
                                          << (descending ? " descending" : "");
      EXPECT_EQ(rows->matching, want->size());
      EXPECT_EQ(rows->total, whole->events.size());
      for (size_t step : {size_t{37}, size_t{1500}}) {
        const auto got = everyRow(**pages, *rows, step);
        ASSERT_EQ(got.size(), want->size());
        for (size_t r = 0; r < got.size(); ++r) {
          const uint64_t i = want->eventAt(r);
          ASSERT_EQ(got[r].index, i) << path << " '" << filter << "' by column " << static_cast<int>(sort) << " row " << r;
          const Event& e = got[r].event;
          const Event w = whole->events.at(i);
          EXPECT_EQ(e.t_ns, w.t_ns);
          EXPECT_EQ(e.device, w.device);
          EXPECT_EQ(e.action, w.action);
          EXPECT_EQ(e.size, w.size);
          EXPECT_EQ(e.addr, w.addr);
          EXPECT_EQ(e.stack, w.stack);
          EXPECT_EQ(e.phase, w.phase);
          EXPECT_EQ(got[r].phase, w.phase < whole->phases.size() ? whole->phases[w.phase].name : "");
        }
      }
    }
}

TEST(EventPages, EveryQueryGivesTheRowsTheTraceInMemoryGives) {
  const std::string path = test::tempPath("event-pages-long.sawtooth");
  ASSERT_TRUE(writeNative(longTrace(), path).ok());
  expectSameRows(path, {"", "alloc", "size>=1MB", "cuda:1", "device:cuda:0 size<1kB", "action:free_completed",
                        "nothing-matches"});
}

TEST(EventPages, FixturesWithStacksAndPhasesPageAsInMemory) {
  for (const char* fixture : {"anatomy_adam_snapshot.pickle", "synthetic_window_streams.pickle",
                              "h200_allocator_expandable.pickle"}) {
    auto trace = loadTrace(test::dataPath(fixture));
    ASSERT_TRUE(trace.ok()) << fixture;
    const std::string path = test::tempPath(std::string(fixture) + ".pages.sawtooth");
    ASSERT_TRUE(writeNative(*trace, path).ok());
    expectSameRows(path, {"", "frame:*.py", "*linear*", "phase:*", "phase:optimizer.step*", "category:parameter",
                          "size>4MB alloc", "segment_alloc"});
  }
  // The frames' and phases' filters are not vacuous there: the snapshot's stacks name Python files,
  // its phases include the optimizer's steps.
  auto snapshot = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(snapshot.ok());
  auto framed = selectEvents(*snapshot, EventQuery{"frame:*.py", EventColumn::Index, false});
  ASSERT_TRUE(framed.ok());
  EXPECT_GT(framed->size(), 0u);
  EXPECT_LT(framed->size(), snapshot->events.size());
  auto forward = selectEvents(*snapshot, EventQuery{"phase:optimizer.step*", EventColumn::Index, false});
  ASSERT_TRUE(forward.ok());
  EXPECT_GT(forward->size(), 0u);
}

TEST(EventPages, SortingByAColumnGivesTheRowsTheTraceInMemoryGives) {
  const std::string path = test::tempPath("event-pages-sorted.sawtooth");
  ASSERT_TRUE(writeNative(longTrace(), path).ok());
  expectSameRows(path, {"", "alloc", "cuda:1 size>=1MB"},
                 {EventColumn::Size, EventColumn::Time, EventColumn::Device, EventColumn::Action, EventColumn::Address,
                  EventColumn::Phase});
  for (const char* fixture : {"anatomy_adam_snapshot.pickle", "h200_allocator_expandable.pickle"}) {
    auto trace = loadTrace(test::dataPath(fixture));
    ASSERT_TRUE(trace.ok()) << fixture;
    const std::string fixture_path = test::tempPath(std::string(fixture) + ".sorted.sawtooth");
    ASSERT_TRUE(writeNative(*trace, fixture_path).ok());
    expectSameRows(fixture_path, {"", "frame:*.py alloc"},
                   {EventColumn::Size, EventColumn::TopFrame, EventColumn::Category, EventColumn::Source, EventColumn::Stream,
                    EventColumn::Phase});
  }
}

TEST(EventPages, ASortByPhaseOrdersByNameThenPhaseAsInMemory) {
  // Names that repeat, differ only in case, and events outside any phase: the order of the trace
  // read whole (by name ignoring case, ties by the phase's id, then by event).
  Trace t = longTrace();
  for (const char* name : {"forward", "Backward", "optimizer", "backward", "Forward", "forward", "zeta", "Optimizer"})
    t.phases.push_back(Phase{name});
  for (size_t i = 0; i < t.events.size(); ++i)
    if (i % 5 != 4) t.events.setPhase(i, static_cast<uint32_t>((i * 31) % t.phases.size()));
  const std::string path = test::tempPath("event-pages-phases.sawtooth");
  ASSERT_TRUE(writeNative(t, path).ok());
  expectSameRows(path, {"", "alloc", "phase:forward"}, {EventColumn::Phase});
}

TEST(EventPages, ASortKeepsOnlyItsFirstRows) {
  // More events than a sort keeps: the first kMaxSortedRows in its order, the rest counted.
  Trace t;
  t.deviceInfo(0);
  const size_t n = EventPages::kMaxSortedRows + 2345;
  for (size_t i = 0; i < n; ++i) {
    Event e;
    e.t_ns = static_cast<int64_t>(i);
    e.size = static_cast<int64_t>((i * 7919) % 100003) * 512;
    e.addr = 0x1000 + i * 0x1000;
    t.events.push(e);
  }
  const std::string path = test::tempPath("event-pages-many.sawtooth");
  ASSERT_TRUE(writeNative(t, path).ok());
  auto pages = EventPages::open(path);
  ASSERT_TRUE(pages.ok());
  for (bool descending : {true, false}) {
    const EventQuery query{"", EventColumn::Size, descending};
    auto rows = (*pages)->select(query);
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    EXPECT_EQ(rows->size, EventPages::kMaxSortedRows);
    EXPECT_EQ(rows->matching, n);
    auto want = selectEvents(t, query);
    ASSERT_TRUE(want.ok());
    const auto got = everyRow(**pages, *rows, EventPages::kMaxPageRows);
    ASSERT_EQ(got.size(), EventPages::kMaxSortedRows);
    for (size_t r = 0; r < got.size(); ++r) ASSERT_EQ(got[r].index, want->eventAt(r)) << r;
  }
  auto bad = (*pages)->select(EventQuery{"size>=lots", EventColumn::Index, false});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not a size"), std::string::npos) << bad.error().message;
}

TEST(EventPages, ACancelledSelectSaysSoAndAPagePastTheEndIsEmpty) {
  const std::string path = test::tempPath("event-pages-cancel.sawtooth");
  Trace t = longTrace();
  for (int k = 0; k < 20; ++k)  // past the 65,536 rows between two looks at cancellation
    for (size_t i = 0; i < 6000; ++i) t.events.push(t.events.at(i));
  ASSERT_TRUE(writeNative(t, path).ok());
  auto pages = EventPages::open(path);
  ASSERT_TRUE(pages.ok());
  std::atomic<bool> cancel{true};
  Progress progress([](int) {}, &cancel);
  auto rows = (*pages)->select(EventQuery{"alloc", EventColumn::Index, false}, &progress);
  ASSERT_FALSE(rows.ok());
  EXPECT_TRUE(rows.error().message.ends_with("cancelled")) << rows.error().message;
  auto all = (*pages)->select(EventQuery{});
  ASSERT_TRUE(all.ok());
  auto past = (*pages)->page(*all, all->size + 5, 10);
  ASSERT_TRUE(past.ok());
  EXPECT_TRUE(past->index.empty());
}

// A file is data: a phase name that is not text, phase ids with a hole (when a filter reads the
// phases' names), an event whose size is text are refused with the file and the place, never read
// as something else.
TEST(EventPages, AHostileFileIsRefusedWithThePlace) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(trace.ok());
  const std::string blob = test::tempPath("event-pages-blob-phase.sawtooth");
  ASSERT_TRUE(writeNative(*trace, blob).ok());
  test::execSql(blob, "UPDATE phases SET name = x'00ff' WHERE id = 1");
  auto a = EventPages::open(blob);  // the phases are read only by a filter that looks at them
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto a_rows = (*a)->select(EventQuery{"optimizer*", EventColumn::Index, false});
  ASSERT_FALSE(a_rows.ok());
  EXPECT_NE(a_rows.error().message.find("phases row 1"), std::string::npos) << a_rows.error().message;
  auto a_all = (*a)->select(EventQuery{});
  ASSERT_TRUE(a_all.ok());
  auto a_page = (*a)->page(*a_all, 0, 400);  // the blob's name shows as none
  ASSERT_TRUE(a_page.ok()) << a_page.error().message;

  const std::string hole = test::tempPath("event-pages-hole.sawtooth");
  ASSERT_TRUE(writeNative(*trace, hole).ok());
  test::execSql(hole, "UPDATE phases SET id = 1000 WHERE id = 2");
  auto b = EventPages::open(hole);
  ASSERT_TRUE(b.ok()) << b.error().message;
  auto b_rows = (*b)->select(EventQuery{"phase:x", EventColumn::Index, false});
  ASSERT_FALSE(b_rows.ok());
  EXPECT_NE(b_rows.error().message.find("not dense"), std::string::npos) << b_rows.error().message;

  const std::string text = test::tempPath("event-pages-text-size.sawtooth");
  ASSERT_TRUE(writeNative(*trace, text).ok());
  test::execSql(text, "UPDATE events SET size = 'lots' WHERE seq = 200");
  auto c = EventPages::open(text);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto rows = (*c)->select(EventQuery{"alloc", EventColumn::Index, false});
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.error().message.find("event 200"), std::string::npos) << rows.error().message;
  auto all = (*c)->select(EventQuery{});
  ASSERT_TRUE(all.ok());
  auto page = (*c)->page(*all, 150, 100);
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.error().message.find("'size' is text"), std::string::npos) << page.error().message;
}

}  // namespace
}  // namespace sawtooth
