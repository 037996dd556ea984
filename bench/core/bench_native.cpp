// Opening a 10 M-event .sawtooth file (readNative): cold, with the page cache dropped before
// every iteration when the process may (root), and warm.

#include <benchmark/benchmark.h>

#include <optional>

#include "bench/core/bench_data.h"
#include "core/io/native_format.h"

namespace sawtooth::bench {
namespace {

void BM_OpenNative(benchmark::State& state) {
  (void)trace10m();  // writes the file on first use
  const std::string path = native10mPath();
  const bool cold = state.range(0) == 1;
  bool dropped = true;
  std::optional<Trace> trace;
  for (auto _ : state) {
    state.PauseTiming();
    trace.reset();
    if (cold) dropped = dropPageCache() && dropped;
    state.ResumeTiming();
    auto loaded = readNative(path);
    if (!loaded) {
      state.SkipWithError(loaded.error().message.c_str());
      return;
    }
    trace = std::move(*loaded);
  }
  state.counters["events"] = static_cast<double>(trace->events.size());
  state.SetLabel(!cold ? "warm page cache" : dropped ? "cold: page cache dropped" : "WARM: could not drop the page cache");
}
BENCHMARK(BM_OpenNative)->ArgName("cold")->Arg(1)->Arg(0)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace sawtooth::bench
