// What the allocator tracker (libsawtooth_torch_tracker.so) costs the program's thread per trace
// entry, beside what PyTorch's own history recording does with the same entry: the CUDA caching
// allocator hands each TraceEntry, under its lock, to the trackers and then copies it into its
// history ring (`alloc_trace`, max_entries long, the oldest entry overwritten once full). Both run
// here on the CPU with the entries the allocator would build, each holding a stack context; the
// tracker's own thread drains its queue to a socket that a reader thread empties, as the recorder
// would. Issue 12's overhead target is about the program's step time: this is the part of it that
// is ours alone, per event (GPT-2 small in bf16 makes about 3,900 allocator events per step).
//
// Run: build/ci/bin/sawtooth_bench_tracker --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <c10/core/CachingDeviceAllocator.h>
#include <torch/csrc/profiler/combined_traceback.h>

#include "capture/inject/torch_tracker.h"
#include "capture/writer/sequence_map.h"

namespace {

using c10::CachingDeviceAllocator::TraceEntry;
namespace tracker = sawtooth::tracker;

TraceEntry makeEntry(size_t addr, std::shared_ptr<c10::GatheredContext> context) {
  return TraceEntry(TraceEntry::ALLOC, 0, addr, 512, reinterpret_cast<void*>(0x77), {0, 0}, 0, std::move(context));
}

// A recorder that reads and drops everything the tracker sends.
class SinkRecorder {
 public:
  SinkRecorder() : path_((std::filesystem::temp_directory_path() / "sawtooth-bench-tracker.sock").string()) {
    unlink(path_.c_str());
    listener_ = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path_.c_str());
    if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener_, 1) != 0) return;
    reader_ = std::thread([this] {
      const int peer = accept(listener_, nullptr, nullptr);
      if (peer < 0) return;
      static char buffer[1 << 16];
      while (read(peer, buffer, sizeof buffer) > 0) {
      }
      close(peer);
    });
  }
  ~SinkRecorder() {
    if (reader_.joinable()) reader_.join();
    close(listener_);
    unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int listener_ = -1;
  std::thread reader_;
};

// Every allocation has a stack context of its own: a pool of distinct ones, cycled, so that the
// two threads do not share one reference count as no real program's would.
class Contexts {
 public:
  Contexts() {
    pool_.reserve(kSize);
    for (size_t i = 0; i < kSize; ++i)
      pool_.push_back(torch::CapturedTraceback::gather(/*python*/ false, /*script*/ false, /*cpp*/ false));
  }
  const std::shared_ptr<c10::GatheredContext>& next() { return pool_[next_++ & (kSize - 1)]; }

 private:
  static constexpr size_t kSize = 1 << 16;
  std::vector<std::shared_ptr<c10::GatheredContext>> pool_;
  size_t next_ = 0;
};

// PyTorch's history alone: the entry copied into a ring of max_entries (1 M in the overhead
// stage's "history" case), overwriting the oldest once the ring is full.
void BM_PyTorchHistoryRing(benchmark::State& state) {
  Contexts contexts;
  const size_t max_entries = 1 << 20;
  std::vector<TraceEntry> ring;
  ring.reserve(max_entries);
  size_t next = 0;
  size_t addr = 0x1000;
  for (auto _ : state) {
    TraceEntry te = makeEntry(addr += 512, contexts.next());
    if (ring.size() < max_entries) {
      ring.emplace_back(te);
    } else {
      ring[next] = te;
      next = (next + 1) % max_entries;
    }
    benchmark::DoNotOptimize(ring.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_PyTorchHistoryRing);

// Ours on top: the same entry handed to the tracker (as the allocator calls it) and, since the
// shim runs PyTorch's history with max_entries=1 so that the tracker is called at all, a ring of
// one.
// The tracker started once per process (one connection, as in a program), to a sink.
bool trackerStarted() {
  static SinkRecorder* recorder = new SinkRecorder();
  static bool started = [] {
    std::string error;
    // No stacks to symbolize here (the contexts hold none), deliveries every 1 ms.
    const bool ok = tracker::start(recorder->path().c_str(), /*with_stacks*/ false, /*interval_ms*/ 1, error);
    if (ok) std::atexit([] { tracker::stop("benchmark done"); });
    return ok;
  }();
  return started;
}

void BM_OursTrackerAndRingOfOne(benchmark::State& state) {
  if (!trackerStarted()) {
    state.SkipWithError("the tracker did not connect");
    return;
  }
  Contexts contexts;
  TraceEntry last = makeEntry(0, nullptr);
  const uint64_t dropped_before = tracker::dropped();
  size_t addr = 0x1000;
  uint64_t n = 0;
  for (auto _ : state) {
    TraceEntry te = makeEntry(addr += 512, contexts.next());
    tracker::onTraceEntry(te);
    last = te;
    benchmark::DoNotOptimize(&last);
    // A quarter of the queue, then time for the tracker's thread to drain it: a full queue would
    // drop, and dropping is cheaper than queueing.
    if (++n % 16384 == 0) {
      state.PauseTiming();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["dropped"] = static_cast<double>(tracker::dropped() - dropped_before);
}
BENCHMARK(BM_OursTrackerAndRingOfOne);

// What one module call's marks cost the program's thread (module attribution, issue 23): the
// entry and the exit Module.__call__ in C makes around the call (capture/inject/module_builtins.h),
// each stamped and queued for the tracker's thread, which sends them with the allocations.
void BM_ModuleCallMarks(benchmark::State& state) {
  if (!trackerStarted()) {
    state.SkipWithError("the tracker did not connect");
    return;
  }
  const uint64_t dropped_before = tracker::dropped();
  uint64_t n = 0;
  for (auto _ : state) {
    tracker::moduleEnter(7, 0);
    tracker::moduleExit(7);
    if (++n % 8192 == 0) {  // two records a call: let the tracker's thread drain the queue
      state.PauseTiming();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["dropped"] = static_cast<double>(tracker::dropped() - dropped_before);
}
BENCHMARK(BM_ModuleCallMarks);

// What the tracker's thread does for each backward allocation with module tracking: the module
// whose forward made the autograd node running, from a history of `steps` steps of GPT-2's shape
// (a root, 12 blocks of 12 calls, 4 nodes a leaf), asked for the last step's nodes newest first as
// backward asks. A binary search over the whole history cost 29 / 115 / 94 / 180 ns a lookup at
// 10 / 100 / 410 / 2000 steps on the 2-core machine (its history cache-cold in a real run); the
// range narrowed from the newest call back keeps it near the recent calls.
void BM_SequenceMapBackwardLookup(benchmark::State& state) {
  sawtooth::capture::SequenceMap map;
  uint64_t seq = 0;
  std::vector<uint64_t> last_step;
  for (int64_t step = 0; step < state.range(0); ++step) {
    last_step.clear();
    map.open(1, 0, seq);
    for (uint32_t b = 0; b < 12; ++b) {
      map.open(1, 1 + b, seq);
      for (uint32_t c = 0; c < 12; ++c) {
        map.open(1, 100 + b * 12 + c, seq);
        for (int k = 0; k < 4; ++k) last_step.push_back(seq++);
        map.close(1, 100 + b * 12 + c, seq);
      }
      map.close(1, 1 + b, seq);
    }
    map.close(1, 0, seq);
  }
  uint64_t found = 0;
  for (auto _ : state)
    for (size_t i = last_step.size(); i-- > 0;) found += map.find(1, last_step[i]);
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * last_step.size()));
  state.counters["calls_kept"] = static_cast<double>(map.size());
}
BENCHMARK(BM_SequenceMapBackwardLookup)->Arg(10)->Arg(100)->Arg(410)->Arg(2000);

}  // namespace
