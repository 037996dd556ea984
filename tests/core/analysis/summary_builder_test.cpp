// The file's summaries (core/analysis/summary_builder.h) against the series a whole trace gives
// in memory (core/analysis/series.h, category_series.h): every node's envelope and last value,
// every axis node, the phases' and steps' peaks; categories learnt late give the summaries that
// the final categories give; the allocator's states against the replay's.

#include <gtest/gtest.h>

#include <random>

#include "core/analysis/allocator_history.h"
#include "core/analysis/category_series.h"
#include "core/analysis/series.h"
#include "core/analysis/step_alignment.h"
#include "core/analysis/summary_builder.h"
#include "core/analysis/summary_memory.h"
#include "core/analysis/summary_source.h"
#include "core/analysis/timeline_frame.h"
#include "core/analysis/timeline_model.h"
#include "core/analysis/trace_analysis.h"

namespace sawtooth::summary {

// A training loop's shape on one or two devices: segments, allocations and frees with
// categories, samples and driver records (some late), phases forward/backward/optimizer.
Trace makeTrace(size_t steps, unsigned seed, int devices = 1, int64_t late_ns = 0) {
  std::mt19937_64 rng(seed);
  Trace t;
  int64_t now = 1000;
  auto ev = [&](DeviceId d, Source s, Action a, uint64_t addr, int64_t size, Category c = Category::Unknown,
                int64_t at = -1) {
    Event e;
    e.t_ns = at < 0 ? now : at;
    e.device = d;
    e.source = s;
    e.action = a;
    e.addr = addr;
    e.size = size;
    e.category = c;
    t.events.push(e);
  };
  for (int d = 0; d < devices; ++d) {
    DeviceInfo& info = t.deviceInfo(d);
    info.baseline_allocated = d * 4096;
    info.baseline_reserved = d * 8192;
  }
  std::vector<std::vector<std::pair<uint64_t, std::pair<int64_t, Category>>>> live(static_cast<size_t>(devices));
  uint64_t next_addr = 0x1000;
  for (size_t step = 0; step < steps; ++step) {
    for (const char* name : {"forward", "backward", "optimizer"}) {
      Phase p;
      p.name = name;
      p.begin_ns = now;
      const size_t n = 20 + rng() % 40;
      for (size_t i = 0; i < n; ++i) {
        now += 1 + static_cast<int64_t>(rng() % 50);
        const DeviceId d = static_cast<DeviceId>(rng() % static_cast<uint64_t>(devices));
        auto& l = live[static_cast<size_t>(d)];
        const uint64_t r = rng() % 100;
        if (r < 45 || l.empty()) {
          const int64_t size = 512 * static_cast<int64_t>(1 + rng() % 64);
          const auto c = static_cast<Category>(rng() % kCategoryCount);
          if (rng() % 8 == 0) ev(d, Source::Allocator, Action::SegmentAlloc, next_addr, size * 4);
          ev(d, Source::Allocator, Action::Alloc, next_addr, size, c);
          l.push_back({next_addr, {size, c}});
          next_addr += static_cast<uint64_t>(size) * 4;
        } else if (r < 85) {
          const size_t k = rng() % l.size();
          auto [addr, sc] = l[k];
          l.erase(l.begin() + static_cast<long>(k));
          ev(d, Source::Allocator, Action::FreeRequested, addr, sc.first, sc.second);
          ev(d, Source::Allocator, Action::FreeCompleted, addr, sc.first, sc.second);
          if (rng() % 8 == 0) ev(d, Source::Allocator, Action::SegmentFree, addr, sc.first * 4);
        } else if (r < 93) {
          ev(d, Source::Sample, Action::Sample, 0, static_cast<int64_t>(rng() % 100000));
        } else {
          const int64_t at = late_ns > 0 && rng() % 3 == 0 ? now - static_cast<int64_t>(rng() % static_cast<uint64_t>(late_ns)) : now;
          ev(d, Source::Driver, rng() % 2 ? Action::Alloc : Action::FreeCompleted, next_addr, 1 << 20,
             Category::Unknown, std::max<int64_t>(0, at));
        }
      }
      p.end_ns = now;
      t.phases.push_back(p);
      now += 10;
    }
  }
  return t;
}

namespace {

// Summaries of a whole trace, fed as a writer would.
MemoryStore summarise(const Trace& t, BuilderOptions options = {}) {
  MemoryStore store(&t.events);
  SummaryBuilder b(store, options);
  for (const DeviceInfo& d : t.devices) b.setBaseline(d.device, d.baseline_allocated, d.baseline_reserved);
  for (size_t i = 0; i < t.phases.size(); ++i) b.addPhase(static_cast<uint32_t>(i), t.phases[i], false);
  for (size_t i = 0; i < t.events.size(); ++i) EXPECT_TRUE(b.add(i, t.events.at(i)).ok());
  EXPECT_TRUE(b.finish().ok());
  EXPECT_FALSE(b.stale()) << b.staleReason();
  return store;
}

NodeValues envelopeOf(const std::vector<int64_t>& values, int64_t begin, int64_t end) {
  NodeValues acc = single(values[static_cast<size_t>(begin)]);
  for (int64_t i = begin + 1; i < end; ++i) acc = combine(acc, single(values[static_cast<size_t>(i)]));
  return acc;
}

// Every node of a series against its values, and no node beyond them.
void expectPyramid(const MemoryStore& store, DeviceId device, int series, const std::vector<int64_t>& values,
                   const std::string& what) {
  const auto n = static_cast<int64_t>(values.size());
  size_t expected = 0;
  for (int level = 0; level <= topLevel(n) && n > 0; ++level) {
    const int64_t span = nodePoints(level);
    for (int64_t j = 0; j * span < n; ++j) {
      ++expected;
      auto it = store.nodes.find({device, series, level, j});
      ASSERT_NE(it, store.nodes.end()) << what << " level " << level << " node " << j;
      const NodeValues want = envelopeOf(values, j * span, std::min(n, (j + 1) * span));
      ASSERT_EQ(it->second, want) << what << " level " << level << " node " << j;
    }
  }
  size_t held = 0;
  for (const auto& [key, v] : store.nodes)
    if (std::get<0>(key) == device && std::get<1>(key) == series) ++held;
  EXPECT_EQ(held, expected) << what;
  auto row = store.series.find({device, series});
  if (n == 0) return;
  ASSERT_NE(row, store.series.end()) << what;
  EXPECT_EQ(row->second.points, n) << what;
  EXPECT_EQ(row->second.last, values.back()) << what;
}

TEST(SummaryPyramid, OpenNodesCoverEveryPointAndCloseAsTheyFill) {
  PyramidBuilder b;
  std::map<std::pair<int, int64_t>, NodeOut> written;
  std::vector<int64_t> values;
  std::mt19937 rng(3);
  for (int i = 0; i < 5000; ++i) {
    values.push_back(static_cast<int64_t>(rng() % 1000) - 500);
    b.add(values.back(), [&](const NodeOut& n) { written[{n.level, n.node}] = n; });
    if (i % 97 == 0) b.openNodes([&](const NodeOut& n) { written[{n.level, n.node}] = n; });
  }
  b.openNodes([&](const NodeOut& n) { written[{n.level, n.node}] = n; });
  for (const auto& [key, n] : written) {
    const int64_t span = nodePoints(n.level);
    const int64_t end = std::min<int64_t>(static_cast<int64_t>(values.size()), (n.node + 1) * span);
    EXPECT_EQ(n.points, end - n.node * span);
    EXPECT_EQ(n.values, envelopeOf(values, n.node * span, end)) << n.level << " " << n.node;
  }
  EXPECT_TRUE(written.count({topLevel(5000), 0}));
}

TEST(SummaryBuilder, PyramidsMatchTheSeriesOfTheWholeTrace) {
  const Trace t = makeTrace(200, 1, 2);
  const MemoryStore store = summarise(t);
  for (DeviceId d : t.deviceIds()) {
    const DeviceSeries s = buildDeviceSeries(t, d);
    const std::string dev = "device " + std::to_string(d);
    expectPyramid(store, d, kAllocated, s.allocated.value, dev + " allocated");
    expectPyramid(store, d, kReserved, s.reserved.value, dev + " reserved");
    ASSERT_TRUE(s.driver && s.device_used);
    expectPyramid(store, d, kDriver, s.driver->value, dev + " driver");
    expectPyramid(store, d, kDeviceUsed, s.device_used->value, dev + " device used");
    EXPECT_EQ(store.series.at({d, kAllocated}).start, s.allocated.start);
    EXPECT_EQ(store.series.at({d, kReserved}).start, s.reserved.start);
    // The stacked categories: cumulative live bytes, one layer per category but the last.
    const CategoryTimeline timeline = buildCategoryTimeline(t, d);
    ASSERT_FALSE(timeline.empty());
    std::vector<int64_t> cumulative(timeline.live[0].size(), 0);
    for (int layer = 0; layer < kCategoryLayers; ++layer) {
      for (size_t i = 0; i < cumulative.size(); ++i) cumulative[i] += timeline.live[static_cast<size_t>(layer)][i];
      expectPyramid(store, d, layerSeries(layer), cumulative, dev + " layer " + std::to_string(layer));
    }
    // The allocator axis: each leaf's first and last event and (clamped) time.
    const SeriesAxis& axis = *s.allocator;
    for (int64_t j = 0; j * kLeafPoints < static_cast<int64_t>(axis.size()); ++j) {
      const auto& node = store.axis_nodes.at({d, kAllocatorAxis, 0, j});
      const auto last = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(axis.size()), (j + 1) * kLeafPoints) - 1);
      EXPECT_EQ(node.first_seq, axis.event[static_cast<size_t>(j * kLeafPoints)]);
      EXPECT_EQ(node.last_seq, axis.event[last]);
      EXPECT_EQ(node.t_first, axis.t_ns[static_cast<size_t>(j * kLeafPoints)]);
      EXPECT_EQ(node.t_last, axis.t_ns[last]);
    }
  }
  // The event index: every event's chunk, with its times.
  for (const auto& [chunk, row] : store.index) {
    EXPECT_EQ(row.first_seq, static_cast<uint64_t>(chunk) * kIndexChunk);
    EXPECT_EQ(row.last_seq, std::min<uint64_t>(t.events.size(), (static_cast<uint64_t>(chunk) + 1) * kIndexChunk) - 1);
  }
  EXPECT_EQ(store.index.size(), (t.events.size() + kIndexChunk - 1) / kIndexChunk);
}

TEST(SummaryBuilder, LateDriverRecordsTakeTheirPlaceInTime) {
  // Records up to 3 ms late, far within the 30 s they may be: placed by time, as in memory.
  const Trace t = makeTrace(100, 2, 1, 3'000'000);
  const MemoryStore store = summarise(t);
  const DeviceSeries s = buildDeviceSeries(t, 0);
  ASSERT_TRUE(s.driver);
  expectPyramid(store, 0, kDriver, s.driver->value, "driver");
}

TEST(SummaryBuilder, ARecordLaterThanItsPlaceIsPlacedAtTheEarliestOpenTime) {
  Trace t;
  auto push = [&](int64_t at, Source s, Action a, int64_t size) {
    Event e;
    e.t_ns = at;
    e.source = s;
    e.action = a;
    e.size = size;
    t.events.push(e);
  };
  push(0, Source::Driver, Action::Alloc, 100);
  push(40'000'000'000, Source::Allocator, Action::Alloc, 8);  // seals the first driver record
  push(10, Source::Driver, Action::Alloc, 50);                // 40 s late: its place has gone
  push(41'000'000'000, Source::Driver, Action::FreeCompleted, 100);
  const MemoryStore store = summarise(t);
  expectPyramid(store, 0, kDriver, {100, 150, 50}, "driver");
  const auto& leaf = store.axis_nodes.at({0, kDriverAxis, 0, 0});
  EXPECT_EQ(leaf.t_first, 0);
  EXPECT_EQ(leaf.t_last, 41'000'000'000);
}

TEST(SummaryBuilder, PhasesAndStepsKnowTheirPeak) {
  const Trace t = makeTrace(60, 4);
  const MemoryStore store = summarise(t);
  const DeviceSeries s = buildDeviceSeries(t, 0);
  const SeriesAxis& axis = *s.allocator;
  auto check = [&](SpanKind kind, int64_t id, int64_t begin, int64_t end) {
    const SpanRow& row = store.spans.at({0, static_cast<int>(kind), id});
    int64_t peak = -1, at = -1, first = -1, last = -1;
    for (size_t i = 0; i < axis.size(); ++i) {
      if (axis.t_ns[i] < begin || axis.t_ns[i] >= end) continue;
      if (first < 0) first = static_cast<int64_t>(i);
      last = static_cast<int64_t>(i);
      if (at < 0 || s.allocated.value[i] > peak) {
        peak = s.allocated.value[i];
        at = static_cast<int64_t>(i);
      }
    }
    EXPECT_EQ(row.peak_point, at) << id;
    if (at < 0) return;
    EXPECT_EQ(row.peak_allocated, peak) << id;
    EXPECT_EQ(row.peak_seq, axis.event[static_cast<size_t>(at)]) << id;
    EXPECT_EQ(row.reserved_at_peak, s.reserved.value[static_cast<size_t>(at)]) << id;
    EXPECT_EQ(row.first_point, first);
    EXPECT_EQ(row.end_point, last + 1);
    // The categories at the peak add up to it.
    int64_t sum = 0;
    for (int64_t v : row.at_peak) sum += v;
    EXPECT_EQ(sum, peak) << id;
  };
  for (size_t i = 0; i < t.phases.size(); ++i) check(SpanKind::Phase, static_cast<int64_t>(i), t.phases[i].begin_ns, t.phases[i].end_ns);
  const StepStarts steps = findStepStarts(t);
  ASSERT_EQ(steps.t_ns.size(), 60u);
  for (size_t i = 0; i < steps.t_ns.size(); ++i)
    check(SpanKind::Step, static_cast<int64_t>(i), steps.t_ns[i], i + 1 < steps.t_ns.size() ? steps.t_ns[i + 1] : INT64_MAX);
}

// NVTX ranges come through CUPTI's buffers, after the allocator events they cover (a GPT-2
// recording's cub::DeviceRadixSort ranges in embedding backward): each must get the span it would
// have had arriving first, as a reader rebuilding the summaries from the file makes it. Before,
// such a span took the points after its arrival.
TEST(SummaryBuilder, PhasesThatArriveAfterTheirPointsGetTheSpansOfPhasesFirst) {
  const Trace base = makeTrace(40, 11);
  std::mt19937_64 rng(11);
  // Annotations inside the run: some long, some between two points, some at its very end.
  std::vector<Phase> annotations;
  const int64_t t_end = base.events.at(base.events.size() - 1).t_ns;
  for (int k = 0; k < 120; ++k) {
    Phase a;
    a.name = "range";
    a.kind = PhaseKind::Annotation;
    a.begin_ns = 1000 + static_cast<int64_t>(rng() % static_cast<uint64_t>(t_end - 1000));
    a.end_ns = a.begin_ns + (k % 4 == 0 ? 1 : static_cast<int64_t>(rng() % 3000));
    annotations.push_back(a);
  }
  annotations.back().begin_ns = t_end - 5;
  annotations.back().end_ns = t_end + 5;
  // Each phase's arrival: before the first event at or after its begin (the workflow's phases, on
  // time), or after the first event 0 .. 3000 ns past its end (the ranges, late); ids by arrival.
  struct Arrival {
    size_t before_event;
    Phase phase;
  };
  auto firstEventAtOrAfter = [&](int64_t t) {
    for (size_t i = 0; i < base.events.size(); ++i)
      if (base.events.at(i).t_ns >= t) return i;
    return base.events.size();
  };
  std::vector<Arrival> arrivals;
  for (const Phase& p : base.phases) arrivals.push_back({firstEventAtOrAfter(p.begin_ns), p});
  for (const Phase& a : annotations)
    arrivals.push_back({std::min(base.events.size(), firstEventAtOrAfter(a.end_ns + static_cast<int64_t>(rng() % 3000)) + 1), a});
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [](const Arrival& x, const Arrival& y) { return x.before_event < y.before_event; });
  Trace first = base;
  first.phases.clear();
  for (const Arrival& a : arrivals) first.phases.push_back(a.phase);
  const MemoryStore want = summarise(first);

  // The phases arriving together handed over in their ids' order, and in the reverse (the
  // recorder's writer handed a batch's phases over by its own numbering, not the file's: a phase
  // numbered below one already seen was taken for an ended one and lost — a GPT-2 recording's
  // cub::DeviceRadixSort ranges of every middle step).
  for (const bool reversed : {false, true}) {
    MemoryStore got(&first.events);
    SummaryBuilder b(got);
    b.setBaseline(0, 0, 0);
    size_t next = 0;
    auto arrive = [&](size_t before_event) {
      const size_t from = next;
      while (next < arrivals.size() && arrivals[next].before_event <= before_event) ++next;
      for (size_t k = 0; k < next - from; ++k) {
        const size_t id = reversed ? next - 1 - k : from + k;
        b.addPhase(static_cast<uint32_t>(id), arrivals[id].phase, false);
      }
    };
    for (size_t i = 0; i < first.events.size(); ++i) {
      arrive(i);
      ASSERT_TRUE(b.add(i, first.events.at(i)).ok());
      if (i % 500 == 499) ASSERT_TRUE(b.flush().ok());
    }
    arrive(SIZE_MAX);
    ASSERT_TRUE(b.finish().ok());
    EXPECT_FALSE(b.stale()) << b.staleReason();
    size_t late = 0;
    for (const auto& [key, row] : want.spans) {
      auto it = got.spans.find(key);
      ASSERT_NE(it, got.spans.end()) << "span " << std::get<2>(key) << " kind " << std::get<1>(key) << " reversed " << reversed;
      EXPECT_EQ(it->second, row) << "span " << std::get<2>(key) << " kind " << std::get<1>(key) << " reversed " << reversed;
      late += first.phases[static_cast<size_t>(std::get<2>(key))].kind == PhaseKind::Annotation;
    }
    EXPECT_EQ(got.spans.size(), want.spans.size());
    EXPECT_GT(late, 100u);
  }

  // Ranges later than the points the builder keeps: the summaries say they are stale.
  BuilderOptions few;
  few.recent_points = 16;
  MemoryStore short_memory(&first.events);
  SummaryBuilder s(short_memory, few);
  s.setBaseline(0, 0, 0);
  for (size_t i = 0; i < first.events.size(); ++i) ASSERT_TRUE(s.add(i, first.events.at(i)).ok());
  s.addPhase(0, annotations.front(), false);
  ASSERT_TRUE(s.finish().ok());
  EXPECT_TRUE(s.stale());
  EXPECT_NE(s.staleReason().find("arrived after the points it covers"), std::string::npos) << s.staleReason();
}

// A recorder learns a block's category after writing its alloc (when the program names the
// tensor, when backward begins, when the block dies): written uncategorised, told later. The
// summaries must end where the final categories lead, flushes (batches) in between.
TEST(SummaryBuilder, CategoriesLearntLateGiveTheFinalSummaries) {
  // (recent: how many points' seqs the builder keeps; older ones are found through the store.)
  for (auto [seed, recent, latest] : {std::tuple{5u, size_t{1} << 16, 1000u}, std::tuple{6u, size_t{1} << 16, 1000u},
                                      std::tuple{7u, size_t{64}, 6000u}}) {
    const Trace final_trace = makeTrace(150, seed);
    BuilderOptions without_states;  // as the builder below (no allocator replay: no fragmentation series)
    without_states.checkpoints = false;
    const MemoryStore want = summarise(final_trace, without_states);

    EventStore written;
    for (size_t i = 0; i < final_trace.events.size(); ++i) written.push(final_trace.events.at(i));
    std::mt19937_64 rng(seed);
    // Each categorised alloc row is written uncategorised and learns its category 0..999 events later.
    std::multimap<size_t, size_t> learn_at;
    for (size_t i = 0; i < written.size(); ++i) {
      if (written.action()[i] != Action::Alloc || written.category()[i] == Category::Unknown) continue;
      written.setCategory(i, Category::Unknown);
      learn_at.emplace(i + rng() % latest, i);
    }
    MemoryStore got(&written);
    BuilderOptions options;
    options.checkpoints = false;
    options.recent_points = recent;
    SummaryBuilder b(got, options);
    b.setBaseline(0, 0, 0);
    for (size_t i = 0; i < final_trace.phases.size(); ++i) b.addPhase(static_cast<uint32_t>(i), final_trace.phases[i], false);
    auto learn = [&](size_t row) {
      const Category c = final_trace.events.category()[row];
      written.setCategory(row, c);
      ASSERT_TRUE(b.recategorise(row, 0, Action::Alloc, written.sizes()[row], Category::Unknown, c).ok());
    };
    for (size_t i = 0; i < written.size(); ++i) {
      ASSERT_TRUE(b.add(i, written.at(i)).ok());
      for (auto [it, end] = learn_at.equal_range(i); it != end; ++it) learn(it->second);
      if (i % 300 == 299) {
        ASSERT_TRUE(b.flush().ok());
      }
    }
    for (auto it = learn_at.lower_bound(written.size()); it != learn_at.end(); ++it) learn(it->second);
    ASSERT_TRUE(b.finish().ok());
    for (const auto& [key, values] : want.nodes) {
      auto it = got.nodes.find(key);
      ASSERT_NE(it, got.nodes.end());
      ASSERT_EQ(it->second, values) << "seed " << seed << " series " << std::get<1>(key) << " level " << std::get<2>(key)
                                    << " node " << std::get<3>(key);
    }
    EXPECT_EQ(got.nodes.size(), want.nodes.size());
    for (const auto& [key, row] : want.spans) EXPECT_EQ(got.spans.at(key).at_peak, row.at_peak) << std::get<2>(key);
    // Each category's peak: exact while every category is learnt for a point the builder still
    // keeps; otherwise said to be inexact (a reader counts them).
    ASSERT_EQ(got.category_peaks.count(0), 1u);
    const CategoryPeaksRow& peaks = got.category_peaks.at(0);
    if (recent > latest) {
      EXPECT_TRUE(peaks.exact) << seed;
      EXPECT_EQ(peaks, want.category_peaks.at(0)) << seed;
      EXPECT_EQ(peaks.peak, categoryPeaks(final_trace, 0).peak) << seed;
    } else {
      EXPECT_FALSE(peaks.exact) << seed;
    }
  }
}

// Counts the span rows a category learnt late reads or rewrites.
class SpanCountingStore : public MemoryStore {
 public:
  using MemoryStore::MemoryStore;
  size_t span_rows = 0;
  Status shiftSpans(DeviceId device, int64_t from_point, Category from, Category to, int64_t bytes) override {
    span_rows += spans.size();  // a pass over every span (the file's UPDATE reads each one)
    return MemoryStore::shiftSpans(device, from_point, from, to, bytes);
  }
  Status shiftSpan(DeviceId device, SpanKind kind, int64_t id, Category from, Category to, int64_t bytes) override {
    ++span_rows;
    return MemoryStore::shiftSpan(device, kind, id, from, to, bytes);
  }
};

// A recorder learns the category of a recent event (an activation marked when backward begins,
// its forward in the batch before): the spans whose peak moves are the few closed since, found
// by key — not every phase and step of the file, which grow with the recording.
TEST(SummaryBuilder, ACategoryLearntForARecentEventTouchesOnlyTheSpansClosedSince) {
  const Trace final_trace = makeTrace(600, 9);
  BuilderOptions without_states;  // as the builder below (no allocator replay: no fragmentation series)
  without_states.checkpoints = false;
  const MemoryStore want = summarise(final_trace, without_states);
  ASSERT_GT(want.spans.size(), 2000u);
  EventStore written;
  for (size_t i = 0; i < final_trace.events.size(); ++i) written.push(final_trace.events.at(i));
  // The last 400 events' categorised allocs are written uncategorised and learnt 60 events later.
  std::multimap<size_t, size_t> learn_at;
  for (size_t i = written.size() - 400; i < written.size(); ++i) {
    if (written.action()[i] != Action::Alloc || written.category()[i] == Category::Unknown) continue;
    written.setCategory(i, Category::Unknown);
    learn_at.emplace(i + 60, i);
  }
  ASSERT_GT(learn_at.size(), 20u);
  SpanCountingStore got(&written);
  BuilderOptions options;
  options.checkpoints = false;
  SummaryBuilder b(got, options);
  b.setBaseline(0, 0, 0);
  for (size_t i = 0; i < final_trace.phases.size(); ++i) b.addPhase(static_cast<uint32_t>(i), final_trace.phases[i], false);
  auto learn = [&](size_t row) {
    const Category c = final_trace.events.category()[row];
    written.setCategory(row, c);
    ASSERT_TRUE(b.recategorise(row, 0, Action::Alloc, written.sizes()[row], Category::Unknown, c).ok());
  };
  for (size_t i = 0; i < written.size(); ++i) {
    ASSERT_TRUE(b.add(i, written.at(i)).ok());
    for (auto [it, end] = learn_at.equal_range(i); it != end; ++it) learn(it->second);
  }
  for (auto it = learn_at.lower_bound(written.size()); it != learn_at.end(); ++it) learn(it->second);
  ASSERT_TRUE(b.finish().ok());
  // A few spans per event (its phase and step closed since, if any); a pass over every span would
  // be thousands per event.
  EXPECT_LE(got.span_rows, 4 * learn_at.size());
  for (const auto& [key, row] : want.spans) EXPECT_EQ(got.spans.at(key).at_peak, row.at_peak) << std::get<2>(key);
  for (const auto& [key, values] : want.nodes) EXPECT_EQ(got.nodes.at(key), values);
}

TEST(SummaryBuilder, AllocatorStatesAreTheReplays) {
  const Trace t = makeTrace(400, 8);
  BuilderOptions options;
  options.checkpoint_interval = 1024;
  const MemoryStore store = summarise(t, options);
  auto history = AllocatorHistory::build(t, 0);
  ASSERT_TRUE(history.ok()) << history.error().message;
  const auto positions = history->events().size();
  ASSERT_GT(positions, 4096u);
  size_t compared = 0;
  for (const auto& [key, checkpoint] : store.checkpoints) {
    const auto& [device, position] = key;
    const AllocatorState want = history->stateAfter(position - 1);
    const AllocatorState& got = checkpoint.second;
    EXPECT_EQ(got.position, position - 1);
    EXPECT_EQ(got.segments.size(), want.segments.size()) << position;
    EXPECT_EQ(got.allocated_bytes, want.allocated_bytes) << position;
    EXPECT_EQ(got.reserved, want.reserved) << position;
    EXPECT_EQ(got.free_bytes, want.free_bytes) << position;
    ++compared;
  }
  EXPECT_EQ(compared, (positions + 1023) / 1024);
}

}  // namespace
}  // namespace sawtooth::summary

namespace sawtooth {
namespace {

using summary::MemorySource;

// The per-column envelope (min and max of each column's points) from a query's points.
std::map<double, std::pair<double, double>> envelopes(const std::vector<LodPoint>& points) {
  std::map<double, std::pair<double, double>> out;
  for (const LodPoint& p : points) {
    auto [it, added] = out.try_emplace(p.x, p.y, p.y);
    if (!added) it->second = {std::min(it->second.first, p.y), std::max(it->second.second, p.y)};
  }
  return out;
}

class TimelineModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = summary::makeTrace(300, 11, 2);
    auto source = MemorySource::build(trace_);
    ASSERT_TRUE(source.ok()) << source.error().message;
    model_ = std::make_unique<TimelineModel>(std::shared_ptr<summary::SummarySource>(std::move(*source)));
    ASSERT_TRUE(model_->refresh().ok());
    analysis_ = std::make_unique<TraceAnalysis>(std::make_shared<const Trace>(trace_));
  }
  const SeriesAnalysis& line(DeviceId d, SeriesKind kind) { return *analysis_->device(d)->line(kind); }
  Trace trace_;
  std::unique_ptr<TimelineModel> model_;
  std::unique_ptr<TraceAnalysis> analysis_;
};

TEST_F(TimelineModelTest, AtEventLevelTheDrawingIsTheWholeTracesExactly) {
  for (DeviceId d : {0, 1}) {
    const SeriesAnalysis& a = line(d, SeriesKind::Allocated);
    const SeriesAxis& axis = *a.series->axis;
    for (auto [x0, x1, columns] : {std::tuple{100.0, 2000.0, 500}, std::tuple{0.0, 5000.0, 1000}, std::tuple{3000.5, 3100.5, 64}}) {
      auto got = model_->query(d, summary::kAllocated, false, x0, x1, columns);
      ASSERT_TRUE(got.ok()) << got.error().message;
      const auto want = a.lod.query({}, a.series->start, x0, x1, columns);
      ASSERT_EQ(got->size(), want.size()) << d << " " << x0;
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_DOUBLE_EQ((*got)[i].x, want[i].x);
        EXPECT_DOUBLE_EQ((*got)[i].y, want[i].y) << i;
      }
      EXPECT_GT(model_->lastReads().events, 0u);
    }
    // By time, zoomed in as far.
    const double t0 = static_cast<double>(axis.t_ns[1000]), t1 = static_cast<double>(axis.t_ns[1500]);
    auto got = model_->query(d, summary::kReserved, true, t0, t1, 200);
    ASSERT_TRUE(got.ok());
    const SeriesAnalysis& r = line(d, SeriesKind::Reserved);
    const auto want = r.lod.query(axis.t_ns, r.series->start, t0, t1, 200);
    ASSERT_EQ(got->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ((*got)[i].y, want[i].y) << i;
  }
}

TEST_F(TimelineModelTest, ZoomedOutEachColumnHoldsItsTruthAndNoMoreThanTwoColumnsAround) {
  for (bool by_time : {false, true}) {
    for (int series : {int{summary::kAllocated}, int{summary::kReserved}, summary::layerSeries(2)}) {
      const DeviceId d = 0;
      const double x0 = model_->xMin(by_time), x1 = model_->xMax(by_time);
      for (int columns : {50, 300}) {
        auto got = model_->query(d, series, by_time, x0, x1, columns);
        ASSERT_TRUE(got.ok()) << got.error().message;
        std::vector<LodPoint> want;
        if (series >= summary::kFirstCategoryLayer) {
          // The layer's values, as the analysis stacks them.
          const CategoryStack& stack = analysis_->device(d)->categories;
          const SeriesAxis& axis = *analysis_->device(d)->series.allocator;
          want = stack.lods[2].query(axis.xs(by_time), stack.cumulative_start[2], x0, x1, columns);
        } else {
          const SeriesAnalysis& a = line(d, series == summary::kAllocated ? SeriesKind::Allocated : SeriesKind::Reserved);
          want = a.lod.query(a.series->axis->xs(by_time), a.series->start, x0, x1, columns);
        }
        const auto g = envelopes(*got), w = envelopes(want);
        ASSERT_EQ(g.size(), w.size());
        auto wi = w.begin();
        for (auto gi = g.begin(); gi != g.end(); ++gi, ++wi) {
          // Holds the truth...
          EXPECT_LE(gi->second.first, wi->second.first) << by_time << " " << series << " column " << gi->first;
          EXPECT_GE(gi->second.second, wi->second.second) << by_time << " " << series << " column " << gi->first;
          // ...and nothing the columns up to two away do not.
          double lo = wi->second.first, hi = wi->second.second;
          auto n = wi;
          for (int k = 0; k < 2 && n != w.begin(); ++k) {
            --n;
            lo = std::min(lo, n->second.first), hi = std::max(hi, n->second.second);
          }
          n = wi;
          for (int k = 0; k < 2 && std::next(n) != w.end(); ++k) {
            ++n;
            lo = std::min(lo, n->second.first), hi = std::max(hi, n->second.second);
          }
          EXPECT_GE(gi->second.first, lo);
          EXPECT_LE(gi->second.second, hi);
        }
      }
    }
  }
}

TEST_F(TimelineModelTest, TheStackedCategoriesAreTheWholeTracesAtEventLevel) {
  const CategoryStack& stack = analysis_->device(0)->categories;
  const SeriesAxis& axis = *analysis_->device(0)->series.allocator;
  for (bool by_time : {false, true}) {
    const double x0 = by_time ? static_cast<double>(axis.t_ns[2000]) : 2000, x1 = by_time ? static_cast<double>(axis.t_ns[4000]) : 4000;
    auto got = model_->categories(0, by_time, x0, x1, 300);
    ASSERT_TRUE(got.ok()) << got.error().message;
    const auto want = stack.query(axis, by_time, x0, x1, 300);
    ASSERT_EQ(got->x, want.x);
    for (size_t c = 0; c < kCategoryCount; ++c) EXPECT_EQ(got->top[c], want.top[c]) << c;
  }
}

TEST_F(TimelineModelTest, AFrameHoldsEveryLineTheStackAndThePhasesOfItsWindow) {
  auto overview = overviewOf(*model_);
  ASSERT_TRUE(overview.ok()) << overview.error().message;
  ASSERT_EQ(overview->devices.size(), 2u);
  EXPECT_EQ(overview->events, trace_.events.size());
  EXPECT_EQ(overview->devices[0].peak, findPeak(*line(0, SeriesKind::Allocated).series).value);
  const std::vector<SeriesKind> kinds{SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::Driver, SeriesKind::DeviceUsed};
  EXPECT_EQ(overview->devices[0].kinds, kinds);
  EXPECT_EQ(overview->phase_names, (std::vector<std::string>{"forward", "backward", "optimizer"}));
  const SeriesAxis& axis = *analysis_->device(0)->series.allocator;
  TimelineRequest request;
  request.by_time = true;
  request.x0 = static_cast<double>(axis.t_ns[1000]);
  request.x1 = static_cast<double>(axis.t_ns[1200]);
  request.columns = 100;
  request.stacked = true;
  request.devices = {0};
  auto frame = frameOf(*model_, request);
  ASSERT_TRUE(frame.ok()) << frame.error().message;
  ASSERT_EQ(frame->lines.size(), 4u);
  ASSERT_EQ(frame->stacks.size(), 1u);
  const SeriesAnalysis& a = line(0, SeriesKind::Allocated);
  const auto want = a.lod.query(axis.t_ns, a.series->start, request.x0, request.x1, 100);
  const auto& got = std::find_if(frame->lines.begin(), frame->lines.end(), [](const auto& l) { return l.kind == SeriesKind::Allocated; })->points;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].y, want[i].y);
  // Every phase that meets the window is a band (neighbours of one name closer than a column merged).
  size_t meeting = 0;
  for (const Phase& p : trace_.phases) meeting += p.end_ns >= request.x0 && p.begin_ns <= request.x1;
  EXPECT_GT(meeting, 0u);
  EXPECT_GE(frame->bands.size(), 1u);
  EXPECT_LE(frame->bands.size(), meeting);
  for (const auto& b : frame->bands) EXPECT_TRUE(b.name == "forward" || b.name == "backward" || b.name == "optimizer");
}

TEST_F(TimelineModelTest, PeaksAndTheTimeOfPointsAreTheWholeTraces) {
  for (DeviceId d : {0, 1}) {
    for (auto [series, kind] : {std::pair{summary::kAllocated, SeriesKind::Allocated}, std::pair{summary::kReserved, SeriesKind::Reserved}}) {
      const Peak want = findPeak(*line(d, kind).series);
      auto got = model_->peak(d, series);
      ASSERT_TRUE(got.ok()) << got.error().message;
      EXPECT_EQ(got->value, want.value);
      EXPECT_EQ(got->point, want.point);
      EXPECT_EQ(got->t_ns, want.t_ns);
      if (want.point >= 0) {
        EXPECT_EQ(got->seq, want.event);
      }
    }
    const DeviceSeries& s = analysis_->device(d)->series;
    for (int64_t p : {int64_t{0}, int64_t{127}, int64_t{128}, int64_t{999}, static_cast<int64_t>(s.allocatorEvents()) - 1}) {
      auto t = model_->timeOfPoint(d, p);
      ASSERT_TRUE(t.ok());
      EXPECT_EQ(*t, s.allocator->t_ns[static_cast<size_t>(p)]);
      auto back = model_->pointAtTime(d, summary::kAllocatorAxis, *t);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, s.indexAtTime(*t));
    }
  }
}

}  // namespace
}  // namespace sawtooth
