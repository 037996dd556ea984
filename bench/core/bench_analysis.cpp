// What the analysis of a 10 M-event trace costs: the time to build it (series, level-of-detail
// pyramids, peaks, category stacks) and the memory it holds per event, measured as the process's
// resident growth (and, where the analysis can say, its own count of the bytes it holds).

#include <benchmark/benchmark.h>

#include <memory>

#include "bench/core/bench_data.h"
#include "core/analysis/trace_analysis.h"

namespace sawtooth::bench {
namespace {

// The analysis' own count of its bytes, where it keeps one (older builds do not).
template <typename Analysis>
double ownBytes(const Analysis& a) {
  if constexpr (requires { a.bytesResident(); }) return static_cast<double>(a.bytesResident());
  else return -1;
}

void BM_AnalysisBuild(benchmark::State& state) {
  const Trace& trace = trace10m();
  const auto shared = std::shared_ptr<const Trace>(&trace, [](const Trace*) {});
  const double events = static_cast<double>(trace.events.size());
  for (auto _ : state) {
    state.PauseTiming();
    const size_t before = residentBytesAfterTrim();
    state.ResumeTiming();
    auto analysis = std::make_unique<TraceAnalysis>(shared);
    state.PauseTiming();
    const size_t after = residentBytesAfterTrim();
    state.counters["resident_bytes_per_event"] = static_cast<double>(after - before) / events;
    if (const double own = ownBytes(*analysis); own >= 0) state.counters["analysis_bytes_per_event"] = own / events;
    analysis.reset();
    state.ResumeTiming();
  }
  state.counters["events"] = events;
}
BENCHMARK(BM_AnalysisBuild)->Iterations(2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sawtooth::bench
