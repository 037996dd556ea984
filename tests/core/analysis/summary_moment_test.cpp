// One moment of a trace from its summaries (summary_moment.h): the allocator's state, the live
// allocations, the live bytes by call site and the bytes by module are those the whole trace in
// memory gives, at the peak and anywhere, whether the nearest stored state is far or right there,
// and with no stored state at all; from a file as from memory.

#include <gtest/gtest.h>

#include <atomic>
#include <random>

#include "core/analysis/allocator_history.h"
#include "core/analysis/summary_moment.h"
#include "core/analysis/summary_source.h"
#include "core/analysis/site_tables.h"
#include "core/analysis/trace_diff.h"
#include "core/io/event_pages.h"
#include "core/io/native_format.h"
#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

// Device 0 starts empty (the summaries store its allocator states); device 1 began with 4 kB
// allocated and no snapshot of its allocator (no states: its moments come from a pass); device 2
// allocates in no segment at all, as a CPU does. Blocks sit in segments of their own or in none,
// with stacks, categories, modules and passes.
Trace movingTrace(size_t allocator_events, unsigned seed) {
  std::mt19937_64 rng(seed);
  Trace t;
  t.format = "sawtooth";
  t.deviceInfo(0).name = "cuda:0";
  t.deviceInfo(1).baseline_allocated = 4096;
  t.modules.modules = {Module{"Net", "Net", kNoModule, 0}, Module{"0", "Linear", 0, 4096}, Module{"1", "Linear", 0, 8192}};
  std::vector<uint32_t> stacks;
  for (int i = 0; i < 6; ++i) {
    const uint32_t frames[] = {t.stacks.internFrame("train", "train.py", 10 + i), t.stacks.internFrame("step", "model.py", i)};
    stacks.push_back(t.stacks.internStack(frames));
  }
  struct Held {
    uint64_t addr;
    int64_t size;
    bool own_segment;
  };
  std::vector<Held> live[3];
  uint64_t next = 0x10000;
  bool segments_seen = false;
  int64_t now = 0;
  size_t n = 0;
  auto push = [&](DeviceId d, Action a, uint64_t addr, int64_t size) {
    Event e;
    e.t_ns = now += 1 + static_cast<int64_t>(rng() % 7);
    e.device = d;
    e.action = a;
    e.addr = addr;
    e.size = size;
    e.category = static_cast<Category>(rng() % kCategoryCount);
    e.stack = stacks[rng() % stacks.size()];
    e.module = rng() % 4 == 0 ? kNoModule : static_cast<uint32_t>(rng() % 3);
    e.pass = static_cast<Pass>(rng() % 3);
    t.events.push(e);
    ++n;
  };
  while (n < allocator_events) {
    const uint64_t pick = rng() % 10;
    const DeviceId d = pick < 2 ? 1 : pick == 2 ? 2 : 0;  // device 2: allocations in no segment (a CPU's)
    auto& held = live[d];
    if (held.empty() || rng() % 100 < 52) {
      const int64_t size = 512 * static_cast<int64_t>(1 + rng() % 32);
      // Device 0's first block in a segment of its own: from then on it is a device with segments.
      const bool own = d == 0 && (!segments_seen || rng() % 3 != 0);
      segments_seen |= own;
      if (own) push(d, Action::SegmentAlloc, next, size * 2);
      push(d, Action::Alloc, next, size);
      held.push_back({next, size, own});
      next += static_cast<uint64_t>(size) * 2;
    } else {
      const size_t k = rng() % held.size();
      const Held h = held[k];
      held.erase(held.begin() + static_cast<long>(k));
      push(d, Action::FreeRequested, h.addr, h.size);
      push(d, Action::FreeCompleted, h.addr, h.size);
      if (h.own_segment && rng() % 2) push(d, Action::SegmentFree, h.addr, h.size * 2);
    }
  }
  return t;
}

void expectSameLive(const LiveSet& got, const LiveSet& want) {
  EXPECT_EQ(got.position, want.position);
  EXPECT_EQ(got.total, want.total);
  EXPECT_EQ(got.unattributed, want.unattributed);
  ASSERT_EQ(got.allocations.size(), want.allocations.size());
  for (size_t i = 0; i < want.allocations.size(); ++i) {
    const LiveAllocation &g = got.allocations[i], &w = want.allocations[i];
    EXPECT_EQ(g.address, w.address) << i;
    EXPECT_EQ(g.bytes, w.bytes) << i;
    EXPECT_EQ(g.stack, w.stack) << i;
    EXPECT_EQ(g.category, w.category) << i;
    EXPECT_EQ(g.alloc_event, w.alloc_event) << i;
    EXPECT_EQ(g.module, w.module) << i;
    EXPECT_EQ(g.pass, w.pass) << i;
  }
}

// Every figure of the moment against the trace's own at the same position.
void expectTheWholeTraces(const Trace& trace, const SummaryMoment& m, const Trace& tables) {
  const auto device = static_cast<int16_t>(m.device);
  expectSameLive(m.live, liveAllocationsAt(trace, device, m.position));
  const LiveBytes want_live = liveBytesAt(trace, device, m.at_peak ? std::nullopt : std::optional<int64_t>(m.position));
  const LiveBytes got_live = liveBytesOf(tables, m);
  EXPECT_EQ(got_live.headline, want_live.headline);
  ASSERT_EQ(got_live.sites.size(), want_live.sites.size());
  for (size_t i = 0; i < want_live.sites.size(); ++i) EXPECT_EQ(got_live.sites[i].bytes, want_live.sites[i].bytes);

  const ModulesAt want_modules = modulesAt(trace, device, m.at_peak ? std::nullopt : std::optional<int64_t>(m.position));
  const ModulesAt got_modules = modulesOf(tables, m);
  EXPECT_EQ(got_modules.memory.unavailable, want_modules.memory.unavailable);
  EXPECT_EQ(got_modules.memory.headline, want_modules.memory.headline);
  ASSERT_EQ(got_modules.memory.rows.size(), want_modules.memory.rows.size());
  for (size_t i = 0; i < want_modules.memory.rows.size(); ++i) {
    EXPECT_EQ(got_modules.memory.rows[i].name, want_modules.memory.rows[i].name);
    EXPECT_EQ(got_modules.memory.rows[i].self.bytes, want_modules.memory.rows[i].self.bytes) << i;
    EXPECT_EQ(got_modules.memory.rows[i].total.bytes, want_modules.memory.rows[i].total.bytes) << i;
  }
  EXPECT_FALSE(got_modules.memory.costs_known);
  if (!got_modules.memory.rows.empty()) {
    EXPECT_EQ(got_modules.table.columnCount(), 11u);  // no cost columns
  }

  if (!m.state) return;
  auto history = AllocatorHistory::build(trace, device);
  ASSERT_TRUE(history.ok()) << history.error().message;
  const SegmentMap want = segmentMapAt(trace, *history, m.position);
  const std::optional<SegmentMap> got = segmentMapOf(tables, m);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->headline, want.headline);
  EXPECT_EQ(got->state.segments.size(), want.state.segments.size());
  EXPECT_EQ(got->state.allocated_bytes, want.state.allocated_bytes);
  EXPECT_EQ(got->state.requested_bytes, want.state.requested_bytes);
  EXPECT_EQ(got->state.reserved, want.state.reserved);
  EXPECT_EQ(got->sites, want.sites);
  EXPECT_EQ(got->groups.size(), want.groups.size());
  // Block by block, their categories included (a stored state does not keep them).
  for (size_t i = 0; i < want.state.segments.size() && i < got->state.segments.size(); ++i) {
    const auto &gs = got->state.segments[i], &ws = want.state.segments[i];
    EXPECT_EQ(gs.address, ws.address);
    ASSERT_EQ(gs.blocks.size(), ws.blocks.size()) << i;
    for (size_t k = 0; k < ws.blocks.size(); ++k) {
      EXPECT_EQ(gs.blocks[k].address, ws.blocks[k].address);
      EXPECT_EQ(gs.blocks[k].state, ws.blocks[k].state);
      EXPECT_EQ(gs.blocks[k].size, ws.blocks[k].size);
      EXPECT_EQ(gs.blocks[k].alloc_event, ws.blocks[k].alloc_event);
      if (ws.blocks[k].active()) {
        EXPECT_EQ(gs.blocks[k].category, ws.blocks[k].category) << i << " " << k;
      }
    }
  }
}

Trace tablesOf(const Trace& trace) {
  Trace tables;
  tables.format = trace.format;
  tables.meta = trace.meta;
  tables.stacks = trace.stacks;
  tables.devices = trace.devices;
  tables.modules.modules = trace.modules.modules;  // no calls: they grow with the run
  return tables;
}

class SummaryMomentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = movingTrace(12000, 7);
    summary::BuilderOptions options;
    options.checkpoint_interval = 1024;
    auto source = summary::MemorySource::build(trace_, options);
    ASSERT_TRUE(source.ok()) << source.error().message;
    model_ = std::make_unique<TimelineModel>(std::shared_ptr<summary::SummarySource>(std::move(*source)));
    ASSERT_TRUE(model_->refresh().ok());
    tables_ = tablesOf(trace_);
  }
  Trace trace_, tables_;
  std::unique_ptr<TimelineModel> model_;
};

TEST_F(SummaryMomentTest, AtThePeakEveryFigureIsTheWholeTraces) {
  for (DeviceId d : {0, 1, 2}) {
    auto m = momentFromSummaries(*model_, tables_, d, std::nullopt);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_TRUE(m->at_peak);
    EXPECT_EQ(m->position, scopePeak(trace_, static_cast<int16_t>(d)).position) << d;
    EXPECT_EQ(m->state.has_value(), d == 0);
    const char* why = d == 1 ? "no allocator state" : d == 2 ? "no allocator segments" : nullptr;
    if (why != nullptr) {
      EXPECT_NE(m->why_no_state.find(why), std::string::npos) << m->why_no_state;
    }
    expectTheWholeTraces(trace_, *m, tables_);
  }
}

TEST_F(SummaryMomentTest, AnywhereFromTheNearestStoredStateWithinItsInterval) {
  const int64_t n = model_->device(0)->allocator_points;
  ASSERT_GT(n, 4 * 1024);
  for (int64_t position : {int64_t{-1}, int64_t{0}, int64_t{1022}, int64_t{1023}, int64_t{1024}, int64_t{3000}, n - 1, n + 5}) {
    auto m = momentFromSummaries(*model_, tables_, 0, position);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m->position, std::min(position, n - 1));
    EXPECT_LE(m->replayed, 1024) << position;  // never more than the interval between stored states
    ASSERT_TRUE(m->state.has_value());
    EXPECT_EQ(m->state->position, m->position);
    EXPECT_EQ(m->event.has_value(), m->position >= 0);
    expectTheWholeTraces(trace_, *m, tables_);
  }
  // Right after a stored state the moment's event is still the one it follows.
  auto m = momentFromSummaries(*model_, tables_, 0, 1023);
  ASSERT_TRUE(m.ok() && m->event);
  EXPECT_EQ(m->replayed, 0);
  const uint64_t seq = allocatorEvents(trace_, 0)[1023];
  EXPECT_EQ(m->event->addr, trace_.events.addr()[seq]);
  EXPECT_EQ(m->event->action, trace_.events.action()[seq]);
}

TEST_F(SummaryMomentTest, ADeviceWithoutStoredStatesHasLiveBytesButNoSegmentMap) {
  for (int64_t position : {int64_t{-1}, int64_t{5}, int64_t{400}}) {
    auto m = momentFromSummaries(*model_, tables_, 1, position);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_FALSE(m->state.has_value());
    EXPECT_FALSE(segmentMapOf(tables_, *m).has_value());
    expectTheWholeTraces(trace_, *m, tables_);
  }
}

TEST_F(SummaryMomentTest, AskedForItsStateAloneADeviceWithoutStoredStatesReadsNothing) {
  std::atomic<bool> cancel{true};  // reading anything would say "cancelled"
  Progress progress({}, &cancel);
  auto m = momentFromSummaries(*model_, tables_, 1, std::nullopt, &progress, true);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_FALSE(m->state.has_value());
  EXPECT_TRUE(m->live.allocations.empty());
  EXPECT_EQ(m->replayed, 0);
  EXPECT_NE(m->why_no_state.find("no allocator state"), std::string::npos);
}

TEST_F(SummaryMomentTest, CancelledAndUnknownDevicesAreErrorsInWords) {
  std::atomic<bool> cancel{true};
  Progress progress({}, &cancel);
  auto cancelled = momentFromSummaries(*model_, tables_, 0, 3000, &progress);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.error().message, "cancelled");
  auto none = momentFromSummaries(*model_, tables_, 7, std::nullopt);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no allocator events"), std::string::npos) << none.error().message;
}

// The device with the largest peak, as a diff picks it.
DeviceId largestPeak(TimelineModel& model) {
  DeviceId best = 0;
  int64_t value = -1;
  for (const auto& d : model.devices()) {
    auto p = model.peak(d.device, summary::kAllocated);
    if (p.ok() && p->value > value) {
      value = p->value;
      best = d.device;
    }
  }
  return best;
}

TEST(SummaryMomentDiff, ADiffOfTwoMomentsIsTheDiffOfTheTracesAtTheirPeaks) {
  const Trace a = movingTrace(6000, 11), b = movingTrace(7000, 12);
  const Trace ta = tablesOf(a), tb = tablesOf(b);
  auto sa = summary::MemorySource::build(a), sb = summary::MemorySource::build(b);
  ASSERT_TRUE(sa.ok() && sb.ok());
  TimelineModel ma(std::shared_ptr<summary::SummarySource>(std::move(*sa)));
  TimelineModel mb(std::shared_ptr<summary::SummarySource>(std::move(*sb)));
  ASSERT_TRUE(ma.refresh().ok() && mb.refresh().ok());
  auto moment_a = momentFromSummaries(ma, ta, largestPeak(ma), std::nullopt);
  auto moment_b = momentFromSummaries(mb, tb, largestPeak(mb), std::nullopt);
  ASSERT_TRUE(moment_a.ok() && moment_b.ok());
  for (DiffBy by : {DiffBy::Site, DiffBy::Module}) {
    auto want = diffTraces(a, "a", b, "b", {}, {}, by);
    ASSERT_TRUE(want.ok()) << want.error().message;
    // Either side from its moment, or both.
    for (auto [with_a, with_b] : {std::pair{true, true}, std::pair{true, false}, std::pair{false, true}}) {
      const DiffInput in_a{with_a ? &ta : &a, with_a ? &*moment_a : nullptr, "a", {}};
      const DiffInput in_b{with_b ? &tb : &b, with_b ? &*moment_b : nullptr, "b", {}};
      auto got = diffInputs(in_a, in_b, by);
      ASSERT_TRUE(got.ok()) << got.error().message;
      EXPECT_FALSE(got->totals_known);
      EXPECT_EQ(got->a.device, want->a.device);
      EXPECT_EQ(got->a.peak_allocated_bytes, want->a.peak_allocated_bytes);
      EXPECT_EQ(got->b.peak_allocated_bytes, want->b.peak_allocated_bytes);
      EXPECT_EQ(got->a.peak_position, want->a.peak_position);
      // The rows alive at either peak (a trace in memory also lists sites that only allocated before).
      auto alive = [](const TraceDiff& d) {
        std::vector<DiffRow> out;
        for (const DiffRow& r : d.rows)
          if (r.a_bytes != 0 || r.b_bytes != 0) out.push_back(r);
        return out;
      };
      const auto got_rows = alive(*got), want_rows = alive(*want);
      ASSERT_EQ(got_rows.size(), want_rows.size());
      ASSERT_GT(want_rows.size(), 4u);
      for (size_t i = 0; i < want_rows.size(); ++i) {
        EXPECT_EQ(got_rows[i].site, want_rows[i].site) << i;
        EXPECT_EQ(got_rows[i].category, want_rows[i].category) << i;
        EXPECT_EQ(got_rows[i].a_bytes, want_rows[i].a_bytes) << i;
        EXPECT_EQ(got_rows[i].b_bytes, want_rows[i].b_bytes) << i;
        EXPECT_EQ(got_rows[i].a_count, want_rows[i].a_count) << i;
      }
      // What was allocated over a side is not counted there: no column rather than zeros.
      const Table table = diffSitesTable(*got);
      EXPECT_EQ(table.columnCount(), 7u);
      for (const TableColumn& c : table.columns) EXPECT_EQ(c.name.find("allocated in all"), std::string::npos);
    }
  }
  // With what each side allocated over its whole file counted (one pass over its events): every
  // row and column of the trace read whole, the totals included.
  auto totals_a = allocatedTotalsFromSummaries(ma.source(), largestPeak(ma));
  auto totals_b = allocatedTotalsFromSummaries(mb.source(), largestPeak(mb));
  ASSERT_TRUE(totals_a.ok() && totals_b.ok());
  for (DiffBy by : {DiffBy::Site, DiffBy::Module}) {
    auto want = diffTraces(a, "a", b, "b", {}, {}, by);
    ASSERT_TRUE(want.ok());
    DiffInput in_a{&ta, &*moment_a, "a", {}, &*totals_a};
    DiffInput in_b{&tb, &*moment_b, "b", {}, &*totals_b};
    auto got = diffInputs(in_a, in_b, by);
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_TRUE(got->totals_known);
    EXPECT_EQ(got->a.total_allocated, want->a.total_allocated);
    EXPECT_EQ(got->b.total_allocated, want->b.total_allocated);
    ASSERT_EQ(got->rows.size(), want->rows.size());
    for (size_t i = 0; i < want->rows.size(); ++i) {
      EXPECT_EQ(got->rows[i].site, want->rows[i].site) << i;
      EXPECT_EQ(got->rows[i].a_total_allocated, want->rows[i].a_total_allocated) << i;
      EXPECT_EQ(got->rows[i].b_total_allocated, want->rows[i].b_total_allocated) << i;
      EXPECT_EQ(got->rows[i].a_bytes, want->rows[i].a_bytes) << i;
    }
    EXPECT_EQ(diffSitesTable(*got).columnCount(), diffSitesTable(*want).columnCount());
    // One side counted and not the other: still not known.
    in_b.totals = nullptr;
    auto half = diffInputs(in_a, in_b, by);
    ASSERT_TRUE(half.ok());
    EXPECT_FALSE(half->totals_known);
  }
  std::atomic<bool> stop{true};
  Progress cancelled({}, &stop);
  auto cut = allocatedTotalsFromSummaries(ma.source(), largestPeak(ma), &cancelled);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "cancelled");
  // A run of a file too large to read whole is not diffed on its own.
  auto run = diffInputs(DiffInput{&ta, &*moment_a, "a", "0"}, DiffInput{&b, nullptr, "b", {}});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().message.find("a run"), std::string::npos);
}

// From a .sawtooth file: the tables as the app reads them (EventPages), the summaries and events
// from the file, against the trace read whole — a snapshot whose allocator began full (its
// blocks from before the trace come from the stored start) and a trace with modules.
TEST(SummaryMomentFile, AFilesMomentsAreTheWholeTraces) {
  struct Case {
    std::string name;
    Trace trace;
  };
  std::vector<Case> cases;
  auto snapshot = loadTrace(test::dataPath("h200_allocator_expandable.pickle"));
  ASSERT_TRUE(snapshot.ok());
  cases.push_back({"expandable", std::move(*snapshot)});
  cases.push_back({"moving", movingTrace(5000, 3)});
  for (Case& c : cases) {
    const std::string path = test::tempPath("moment-" + c.name + ".sawtooth");
    ASSERT_TRUE(writeNative(c.trace, path).ok());
    auto whole = loadTrace(path);
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    auto pages = EventPages::open(path);
    ASSERT_TRUE(pages.ok()) << pages.error().message;
    auto place = summariesOf(path);
    ASSERT_TRUE(place.ok()) << place.error().message;
    auto file = native::FileSummarySource::open(*place);
    ASSERT_TRUE(file.ok()) << file.error().message;
    TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*file)));
    ASSERT_TRUE(model.refresh().ok());
    for (const TimelineModel::Device& d : model.devices()) {
      for (std::optional<int64_t> at : {std::optional<int64_t>(), std::optional<int64_t>(d.allocator_points / 3)}) {
        auto m = momentFromSummaries(model, *(*pages)->tables(), d.device, at);
        ASSERT_TRUE(m.ok()) << c.name << ": " << m.error().message;
        SCOPED_TRACE(c.name + " device " + std::to_string(d.device) + " at " + std::to_string(m->position));
        expectTheWholeTraces(*whole, *m, *(*pages)->tables());
      }
    }
  }
}

}  // namespace
}  // namespace sawtooth
