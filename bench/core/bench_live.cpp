// A live recording's refresh (issue 12) with 1 M and 10 M events already loaded: read the 10,000
// events committed since the last poll from the recording's WAL file (LiveTail), add them to the
// timeline (LiveTimeline::append: series and pyramids grow in place) and draw allocated and
// reserved over 1,600 columns. The cost should not depend on what is already loaded. Beside it,
// the reference a refresh replaces: reloading the file (reading it whole and building the
// finished trace's analysis). Self-contained: the recording is made here (a sawtooth of 1 MB
// blocks on device 0), in $TMPDIR.

#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <memory>

#include "core/analysis/live_timeline.h"
#include "core/analysis/trace_analysis.h"
#include "core/io/live_tail.h"
#include "core/io/native_format.h"

namespace sawtooth::bench {
namespace {

constexpr size_t kNewPerRefresh = 10'000;  // 250 ms of a recording writing 40,000 events a second
constexpr int kColumns = 1600;

// Events [first, first + count) of an endless sawtooth: 20 allocations of 1 MB, then their frees.
void sawtooth(EventStore& out, uint64_t first, size_t count) {
  out.clear();
  for (uint64_t i = first; i < first + count; ++i) {
    Event e;
    e.t_ns = static_cast<int64_t>(i) * 2'000;
    const uint64_t k = i % 40;
    e.action = k < 20 ? Action::Alloc : Action::FreeCompleted;
    e.addr = 0x7f0000000000 + (k % 20) * 0x100000;
    e.size = 1 << 20;
    out.push(e);
  }
}

struct Recording {
  std::string path;
  std::unique_ptr<NativeWriter> writer;
  uint64_t seq = 0;
  EventStore batch;

  explicit Recording(size_t events) {
    path = (std::filesystem::temp_directory_path() / ("sawtooth-bench-live-" + std::to_string(events) + ".sawtooth")).string();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    auto created = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
    if (!created) throw std::runtime_error(created.error().message);
    writer = std::move(created.value());
    while (seq < events) append(std::min<size_t>(1'000'000, events - seq));
  }
  ~Recording() {
    (void)writer->finish();
    writer.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  }
  void append(size_t count) {
    sawtooth(batch, seq, count);
    (void)writer->beginBatch();
    (void)writer->appendEventsAt(batch, 0, count, seq);
    (void)writer->commitBatch();
    seq += count;
  }
};

void BM_LiveRefresh(benchmark::State& state) {
  const auto loaded = static_cast<size_t>(state.range(0));
  Recording recording(loaded);
  LiveTail tail(recording.path);
  LiveTimeline timeline;
  for (bool more = true; more;) {  // what the view had before, read as the app does: not timed
    auto all = tail.poll();
    if (!all) return state.SkipWithError(all.error().message.c_str());
    timeline.append(all->rows);
    more = all->more;
  }
  double read_ns = 0, append_ns = 0, query_ns = 0;
  size_t points = 0;
  for (auto _ : state) {
    state.PauseTiming();
    recording.append(kNewPerRefresh);
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    auto batch = tail.poll();
    const auto t1 = std::chrono::steady_clock::now();
    timeline.append(batch->rows);
    const auto t2 = std::chrono::steady_clock::now();
    const auto& d = timeline.devices().front();
    const double x0 = static_cast<double>(*timeline.firstTime()), x1 = static_cast<double>(timeline.lastTime());
    points = timeline.query(d, SeriesKind::Allocated, x0, x1, kColumns).size() +
             timeline.query(d, SeriesKind::Reserved, x0, x1, kColumns).size();
    const auto t3 = std::chrono::steady_clock::now();
    read_ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    append_ns += std::chrono::duration<double, std::nano>(t2 - t1).count();
    query_ns += std::chrono::duration<double, std::nano>(t3 - t2).count();
    if (batch->rows.size() != kNewPerRefresh) return state.SkipWithError("the poll did not read the new events");
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["loaded_events"] = static_cast<double>(loaded);
  state.counters["new_events"] = kNewPerRefresh;
  state.counters["read_ms"] = read_ns / n / 1e6;
  state.counters["append_ms"] = append_ns / n / 1e6;
  state.counters["draw_query_ms"] = query_ns / n / 1e6;
  state.counters["points_drawn"] = static_cast<double>(points);
}
BENCHMARK(BM_LiveRefresh)->Arg(1'000'000)->Arg(10'000'000)->Iterations(20)->Unit(benchmark::kMillisecond);

// The reference: reloading the recording instead — reading the whole file and building the
// finished trace's analysis of it.
void BM_ReloadReference(benchmark::State& state) {
  const auto loaded = static_cast<size_t>(state.range(0));
  Recording recording(loaded);
  for (auto _ : state) {
    auto trace = readNative(recording.path);
    if (!trace) return state.SkipWithError(trace.error().message.c_str());
    TraceAnalysis analysis(std::make_shared<const Trace>(std::move(*trace)));
    benchmark::DoNotOptimize(analysis.maxValue());
  }
  state.counters["loaded_events"] = static_cast<double>(loaded);
}
BENCHMARK(BM_ReloadReference)->Arg(1'000'000)->Arg(10'000'000)->Iterations(2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sawtooth::bench
