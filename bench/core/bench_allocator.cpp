// Scrubbing the allocator's state over a 10 M-event trace: stateAfter(i) at random events, from
// the nearest checkpoint, beside the reference — replaying from event 0 as MemoryViz's state
// history does — and the cost of building the history (checkpoints and series) once.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>

#include "bench/core/allocator_trace_gen.h"
#include "core/analysis/allocator_history.h"
#include "core/analysis/fragmentation_series.h"
#include "core/analysis/segment_map.h"

namespace sawtooth::bench {
namespace {

// 10 M unless SAWTOOTH_BENCH_ALLOCATOR_EVENTS says otherwise (a quick run).
size_t eventCount() {
  const char* env = std::getenv("SAWTOOTH_BENCH_ALLOCATOR_EVENTS");
  return env ? std::strtoull(env, nullptr, 10) : 10'000'000;
}

const Trace& trace() {
  static const Trace t = makeAllocatorTrace(eventCount());
  return t;
}

const AllocatorHistory& history() {
  static const AllocatorHistory h = AllocatorHistory::build(trace(), 0).value();
  return h;
}

const AllocatorHistory& fromStartOnly() {
  static const AllocatorHistory h = [] {
    ReplayOptions o;
    o.checkpoints = false;
    o.series = false;
    return AllocatorHistory::build(trace(), 0, o).value();
  }();
  return h;
}

void BM_AllocatorHistoryBuild(benchmark::State& state) {
  const Trace& t = trace();
  size_t checkpoints = 0, checkpoint_bytes = 0, blocks = 0;
  for (auto _ : state) {
    auto h = AllocatorHistory::build(t, 0);
    checkpoints = h->checkpointCount();
    checkpoint_bytes = h->checkpointBytes();
    blocks = 0;
    for (const SegmentView& s : h->finalState().segments) blocks += s.blocks.size();
    if (h->report().anomalies != 0) state.SkipWithError("the generated trace does not replay cleanly");
    benchmark::DoNotOptimize(h);
  }
  state.counters["events"] = static_cast<double>(history().events().size());
  state.counters["checkpoints"] = static_cast<double>(checkpoints);
  state.counters["checkpoint_MiB"] = static_cast<double>(checkpoint_bytes) / (1 << 20);
  state.counters["series_MiB"] = static_cast<double>(5 * 8 * history().events().size()) / (1 << 20);
  state.counters["blocks_at_end"] = static_cast<double>(blocks);
}
BENCHMARK(BM_AllocatorHistoryBuild)->Iterations(1)->Unit(benchmark::kMillisecond);

// Random events anywhere in the trace, from the nearest checkpoint.
void BM_AllocatorStateAfterScrub(benchmark::State& state) {
  const AllocatorHistory& h = history();
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> pick(0, static_cast<int64_t>(h.events().size()) - 1);
  size_t blocks = 0;
  for (auto _ : state) {
    const AllocatorState s = h.stateAfter(pick(rng));
    blocks = 0;
    for (const SegmentView& seg : s.segments) blocks += seg.blocks.size();
    benchmark::DoNotOptimize(s);
  }
  state.counters["blocks"] = static_cast<double>(blocks);
}
BENCHMARK(BM_AllocatorStateAfterScrub)->Unit(benchmark::kMillisecond);

// The reference: the state at an event replayed from the first event (Args: the event, in
// millions); what scrubbing costs without checkpoints.
void BM_AllocatorStateFromEventZero(benchmark::State& state) {
  const AllocatorHistory& h = fromStartOnly();
  const int64_t position = std::min<int64_t>(state.range(0) * 1'000'000, static_cast<int64_t>(h.events().size()) - 1);
  for (auto _ : state) benchmark::DoNotOptimize(h.stateAfter(position));
}
BENCHMARK(BM_AllocatorStateFromEventZero)->Arg(1)->Arg(5)->Arg(9)->Iterations(2)->Unit(benchmark::kMillisecond);

// The same events with checkpoints, for the side-by-side table.
void BM_AllocatorStateFromCheckpoint(benchmark::State& state) {
  const AllocatorHistory& h = history();
  const int64_t position = std::min<int64_t>(state.range(0) * 1'000'000, static_cast<int64_t>(h.events().size()) - 1);
  for (auto _ : state) benchmark::DoNotOptimize(h.stateAfter(position));
}
BENCHMARK(BM_AllocatorStateFromCheckpoint)->Arg(1)->Arg(5)->Arg(9)->Unit(benchmark::kMillisecond);

// What the segment map view is handed at a random event (the state, grouped by pool and stream,
// with the call site of every stack): the state above plus what the view needs.
void BM_SegmentMapScrub(benchmark::State& state) {
  const AllocatorHistory& h = history();
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> pick(0, static_cast<int64_t>(h.events().size()) - 1);
  for (auto _ : state) benchmark::DoNotOptimize(segmentMapAt(trace(), h, pick(rng)));
}
BENCHMARK(BM_SegmentMapScrub)->Unit(benchmark::kMillisecond);

// The fragmentation chart's points for a 1500-pixel plot: the whole trace (Arg 0) or a zoomed
// tenth of it (Arg 1), on the time axis.
void BM_FragmentationQuery(benchmark::State& state) {
  static const FragmentationSeries f(std::shared_ptr<const Trace>(&trace(), [](const Trace*) {}),
                                     std::shared_ptr<const AllocatorHistory>(&history(), [](const AllocatorHistory*) {}));
  const double lo = f.xMin(true), hi = f.xMax(true);
  const double x0 = state.range(0) ? lo + (hi - lo) * 0.45 : lo, x1 = state.range(0) ? lo + (hi - lo) * 0.55 : hi;
  size_t points = 0;
  for (auto _ : state) {
    points = 0;
    for (int line = 0; line < FragmentationSeries::kLines; ++line) points += f.query(line, true, x0, x1, 1500).size();
    benchmark::DoNotOptimize(points);
  }
  state.counters["points"] = static_cast<double>(points);
}
BENCHMARK(BM_FragmentationQuery)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sawtooth::bench
