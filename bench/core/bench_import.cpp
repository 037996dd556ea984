// Whole-file import of a PyTorch memory snapshot (read, unpickle, import: loadTrace), its parts,
// and what the trace then holds resident. The reference is Python's pickle.loads on the same
// bytes (bench/core/time_pickle_loads.py), which bench/core/run_cpu_benchmarks.sh runs beside these.

#include <benchmark/benchmark.h>

#include <optional>

#include "bench/core/bench_data.h"
#include "core/io/file_bytes.h"
#include "core/io/pickle_document.h"
#include "core/io/snapshot_importer.h"
#include "core/io/trace_loader.h"

namespace sawtooth::bench {
namespace {

Trace loadOrDie(const std::string& path, benchmark::State& state) {
  auto trace = loadTrace(path);
  if (!trace) {
    state.SkipWithError(trace.error().message.c_str());
    return Trace{};
  }
  return std::move(*trace);
}

// Runs first (registered first): the process has freed nothing yet, so the RSS delta is the
// trace's own. One iteration; the counters are the result.
void BM_ResidentAfterImport(benchmark::State& state, const char* file) {
  const std::string path = requireData(file);
  for (auto _ : state) {
    const size_t before = residentBytesAfterTrim();
    Trace trace = loadOrDie(path, state);
    const size_t after = residentBytesAfterTrim();
    const double events = static_cast<double>(trace.events.size());
    if (events == 0) return;
    state.counters["events"] = events;
    state.counters["store_bytes_per_event"] = static_cast<double>(trace.events.bytesResident()) / events;
    state.counters["rss_bytes_per_event"] = static_cast<double>(after - before) / events;
    state.counters["rss_delta_MiB"] = static_cast<double>(after - before) / (1 << 20);
  }
}
BENCHMARK_CAPTURE(BM_ResidentAfterImport, 5m, "snapshot_5m.pickle")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ResidentAfterImport, 500k, "snapshot_500k.pickle")->Iterations(1)->Unit(benchmark::kMillisecond);

// The headline number: file on disk (page cache warm) to a Trace in memory.
void BM_LoadSnapshot(benchmark::State& state, const char* file) {
  const std::string path = requireData(file);
  std::optional<Trace> trace;
  size_t events = 0;
  for (auto _ : state) {
    state.PauseTiming();
    trace.reset();  // freeing the previous trace is not part of loading
    state.ResumeTiming();
    trace = loadOrDie(path, state);
    events = trace->events.size();
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_LoadSnapshot, 500k, "snapshot_500k.pickle")->Iterations(10)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_LoadSnapshot, 5m, "snapshot_5m.pickle")->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

// The parts of loadTrace, to see where the time goes.
void BM_ReadFile(benchmark::State& state, const char* file) {
  const std::string path = requireData(file);
  for (auto _ : state) {
    auto bytes = readMaybeGzip(path);
    benchmark::DoNotOptimize(bytes);
  }
}
BENCHMARK_CAPTURE(BM_ReadFile, 5m, "snapshot_5m.pickle")->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

// Bytes in memory to a pickle::Document: what Python's pickle.loads does.
void BM_PickleParse(benchmark::State& state, const char* file) {
  const std::string bytes = *readMaybeGzip(requireData(file));
  std::optional<pickle::Document> doc;
  for (auto _ : state) {
    state.PauseTiming();
    doc.reset();
    std::string copy = bytes;
    state.ResumeTiming();
    auto parsed = pickle::parse(std::move(copy));
    if (!parsed) {
      state.SkipWithError(parsed.error().message.c_str());
      return;
    }
    doc = std::move(*parsed);
  }
  state.counters["containers"] = static_cast<double>(doc->containerCount());
}
BENCHMARK_CAPTURE(BM_PickleParse, 5m, "snapshot_5m.pickle")->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

// A parsed Document to a Trace.
void BM_ImportSnapshotDocument(benchmark::State& state, const char* file) {
  const auto doc = pickle::parse(*readMaybeGzip(requireData(file)));
  std::optional<Trace> trace;
  for (auto _ : state) {
    state.PauseTiming();
    trace.reset();
    state.ResumeTiming();
    auto imported = importSnapshot(*doc);
    if (!imported) {
      state.SkipWithError(imported.error().message.c_str());
      return;
    }
    trace = std::move(*imported);
  }
}
BENCHMARK_CAPTURE(BM_ImportSnapshotDocument, 5m, "snapshot_5m.pickle")->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace sawtooth::bench
