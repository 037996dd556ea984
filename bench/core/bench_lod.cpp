// Level-of-detail query: 2,000 pixel columns over the allocated series of a 10 M-event trace
// (10 M points), whole range and zoomed in, on the time axis and on the event-index axis.

#include <benchmark/benchmark.h>

#include "core/analysis/lod_pyramid.h"
#include "core/analysis/series.h"
#include "bench/core/bench_data.h"

namespace sawtooth::bench {
namespace {

constexpr int kColumns = 2000;

const Series& series10m() {
  static const DeviceSeries series = buildDeviceSeries(trace10m(), 0);
  return series.allocated;
}

const LodPyramid& pyramid10m() {
  static const LodPyramid lod(series10m().value);
  return lod;
}

void BM_LodBuild(benchmark::State& state) {
  const Series& s = series10m();
  for (auto _ : state) {
    LodPyramid lod(s.value);
    benchmark::DoNotOptimize(lod);
  }
  state.counters["points"] = static_cast<double>(s.size());
  state.counters["pyramid_MiB"] = static_cast<double>(LodPyramid(s.value).bytesResident()) / (1 << 20);
}
BENCHMARK(BM_LodBuild)->Iterations(3)->Unit(benchmark::kMillisecond);

// Args: zoom (the window is 1/zoom of the trace, starting at 37% of it), axis (0 time, 1 index).
void BM_LodQuery(benchmark::State& state) {
  const Series& s = series10m();
  const LodPyramid& lod = pyramid10m();
  const bool by_time = state.range(1) == 0;
  const auto xs = s.axis->xs(by_time);
  const double first = s.axis->x(0, by_time), last = s.axis->x(s.size() - 1, by_time);
  const double span = (last - first) / static_cast<double>(state.range(0));
  const double x0 = state.range(0) == 1 ? first : first + 0.37 * (last - first);
  const double x1 = state.range(0) == 1 ? last + 1 : x0 + span;
  size_t points = 0;
  for (auto _ : state) {
    auto out = lod.query(xs, s.start, x0, x1, kColumns);
    points = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["series_points"] = static_cast<double>(s.size());
  state.counters["output_points"] = static_cast<double>(points);
  state.SetLabel(by_time ? "time axis" : "index axis");
}
BENCHMARK(BM_LodQuery)
    ->ArgNames({"zoom", "axis"})
    ->ArgsProduct({{1, 10, 1000, 100000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sawtooth::bench
