// The recorder's writer (capture/writer/trace_writer.h), beside its physical references on the
// same machine, in the same run:
//   BM_Writer        records of a training loop (anatomy's shape: phases, allocator events with
//                    their host cross-checks, tags, samples, kernels) through the writer thread's
//                    whole path — ordering, attribution, SQLite — into a .sawtooth file;
//   BM_RawSqlite     the same rows (events and kernels, read back from that file) inserted with
//                    the plain SQLite C API: one prepared INSERT per row, one transaction per
//                    batch, the same schema and pragmas;
//   BM_WriteBytes    write() of as many bytes as that file holds, 1 MiB at a time;
//   BM_ChunkedSqlite the same events as a columnar layout inside SQLite would hold them: one row
//                    per 8,192 events, a blob per column (what the one-row-per-event table
//                    costs against the alternative; the file format keeps rows, which sqlite3
//                    users can query);
//   BM_KernelPath    steps of kernels and phases only, at 2,000 to 16,000 steps: the time per
//                    step stays flat when the kernel path is linear in its records.
// Only the writer's own work is timed (manual time); making the records is not.
// Run by bench/capture/run_writer_benchmark.sh, which writes bench/results/cpu-writer-<date>.md.

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/io/native_format.h"
#include "capture/writer/trace_writer.h"

namespace sawtooth::bench {
namespace {

using capture::CaptureRecord;
using capture::RecordKind;
using capture::RecordQueue;
using capture::TraceWriter;
// The writer's own CPU time (user and system, this thread): on a shared machine wall time
// measures the other processes as much as the writer.
struct Clock {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<Clock, duration>;
  static time_point now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return time_point(duration(int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec));
  }
};

constexpr int kLayers = 6;
constexpr int kKernelsPerStep = 50;
constexpr int kStepsPerBatch = 500;  // ~100,000 records: what 50 ms hold at 2 M records/s

std::string benchPath(const std::string& name) {
  const char* dir = std::getenv("SAWTOOTH_BENCH_DATA");
  const std::filesystem::path folder = dir && *dir ? dir : "build/bench-data";
  std::filesystem::create_directories(folder);
  return (folder / name).string();
}

// Makes the records of training steps, in time order, as the capture sources would.
class StepMaker {
 public:
  StepMaker(TraceWriter& writer, RecordQueue& queue, bool memory) : writer_(writer), queue_(queue), memory_(memory) {}

  // Pushes `steps` steps; returns the number of records (kernels included).
  size_t push(int steps) {
    size_t n = 0;
    for (int s = 0; s < steps; ++s) n += step();
    return n;
  }

 private:
  size_t step() {
    count_ = 0;
    const uint64_t base = 0x7f0000000000ULL;
    if (step_ == 0 && memory_)  // parameters and optimizer state, made once
      for (int l = 0; l < 3 * kLayers; ++l) alloc(base + 0x200000 + l * 0x10000, 0x10000);
    marker(RecordKind::StepBegin, 0, static_cast<uint64_t>(step_++));
    phase("zero_grad", [&] {
      for (int l = 0; l < kLayers; ++l) free(base + 0x100000 + l * 0x10000, 0x10000);
    });
    phase("forward", [&] {
      for (int l = 0; l < kLayers; ++l) {
        alloc(base + 0x800000 + l * 0x20000, 0x20000);  // activation, alive at backward
        alloc(base + 0x400000, 0x8000);                 // temporary
        free(base + 0x400000, 0x8000);
      }
    });
    phase("backward", [&] {
      for (int l = kLayers - 1; l >= 0; --l) {
        alloc(base + 0x100000 + l * 0x10000, 0x10000);  // gradient
        alloc(base + 0x400000, 0x8000);
        free(base + 0x400000, 0x8000);
        free(base + 0x800000 + l * 0x20000, 0x20000);
      }
    });
    for (int l = 0; l < kLayers; ++l) tag(base + 0x100000 + l * 0x10000, Category::Gradient);
    phase("optimizer", [&] {
      for (int l = 0; l < kLayers; ++l) {
        alloc(base + 0x400000, 0x8000);
        free(base + 0x400000, 0x8000);
      }
    });
    for (int l = 0; l < 2 * kLayers; ++l) tag(base + 0x200000 + l * 0x10000, Category::OptimizerState);
    kernels();
    return count_;
  }

  template <typename F>
  void phase(const char* name, F body) {
    const uint32_t id = next_phase_++;
    writer_.definePhase(id, name, 0);
    marker(RecordKind::PhaseBegin, id, 0);
    sample();
    if (memory_) body();
    marker(RecordKind::PhaseEnd, id, 0);
    sample();
  }
  void push(CaptureRecord r) {
    r.t_ns = t_ += 500;
    while (!queue_.tryPush(r)) writer_.flushOnce(true);  // (only when a batch outgrows the queue)
    ++count_;
  }
  void marker(RecordKind kind, uint32_t id, uint64_t addr) {
    CaptureRecord r;
    r.kind = kind;
    r.id = id;
    r.addr = addr;
    push(r);
  }
  void memory(Action action, uint64_t addr, int64_t size, Source source) {
    CaptureRecord r;
    r.kind = RecordKind::Memory;
    r.action = action;
    r.addr = addr;
    r.size = size;
    r.source = source;
    r.stream = 0x5555000;
    push(r);
  }
  void alloc(uint64_t addr, int64_t size) {
    memory(Action::Alloc, addr, size, Source::Allocator);
    memory(Action::Alloc, addr, size, Source::Host);  // c10's report of the same block
  }
  void free(uint64_t addr, int64_t size) {
    memory(Action::FreeRequested, addr, size, Source::Allocator);
    memory(Action::FreeCompleted, addr, size, Source::Allocator);
    memory(Action::FreeCompleted, addr, size, Source::Host);
  }
  void tag(uint64_t addr, Category c) {
    if (!memory_) return;
    CaptureRecord r;
    r.kind = RecordKind::Tag;
    r.addr = addr;
    r.category = c;
    push(r);
  }
  void sample() {
    if (!memory_) return;
    CaptureRecord r;
    r.kind = RecordKind::Sample;
    r.size = 1 << 30;
    r.addr = 140ULL << 30;
    push(r);
  }
  void kernels() {
    // Stamped inside the step that just ran, delivered late as CUPTI's buffers are.
    std::vector<KernelInterval> ks;
    const int64_t span = static_cast<int64_t>(count_) * 500;
    for (int k = 0; k < kKernelsPerStep; ++k) {
      KernelInterval ki;
      ki.begin_ns = t_ - span + k * span / kKernelsPerStep;
      ki.end_ns = ki.begin_ns + span / kKernelsPerStep / 2;
      ki.name = static_cast<uint32_t>(k % 12);
      ki.stream = 7;
      ks.push_back(ki);
    }
    std::vector<std::pair<uint32_t, std::string>> names;
    if (step_ == 1)
      for (uint32_t i = 0; i < 12; ++i)
        names.emplace_back(i, "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
                              "at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&)::{lambda(int)#1}>(int, T3)#" +
                                  std::to_string(i));
    writer_.addKernels(std::move(ks), std::move(names));
    count_ += kKernelsPerStep;
  }

  TraceWriter& writer_;
  RecordQueue& queue_;
  bool memory_;
  int64_t t_ = 1'000'000;
  int64_t step_ = 0;
  uint32_t next_phase_ = 0;
  size_t count_ = 0;
};

// Steps through the writer, batch by batch; returns the seconds the writer took.
// summaries: 0 none (format 1's content), 1 the summaries without the allocator's states, 2 all.
double runWriter(const std::string& path, int steps, bool memory, size_t* records, uint64_t* rows, int summaries = 2) {
  NativeWriterOptions options;
  options.recording = true;
  options.summaries = summaries > 0;
  options.allocator_checkpoints = summaries > 1;
  auto file = NativeWriter::create(path, OutputClaim::Existing::Replace, options);
  if (!file) {
    std::fprintf(stderr, "%s\n", file.error().message.c_str());
    std::exit(1);
  }
  RecordQueue queue(1 << 18);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&queue);
  writer.defineRun(0, Run{"bench", "anatomy", {}, {}});
  CaptureRecord begin;
  begin.kind = RecordKind::RunBegin;
  begin.t_ns = 1;
  queue.tryPush(begin);
  StepMaker maker(writer, queue, memory);
  double seconds = 0;
  *records = 1;
  for (int done = 0; done < steps; done += kStepsPerBatch) {
    *records += maker.push(std::min(kStepsPerBatch, steps - done));
    const auto t0 = Clock::now();
    writer.flushOnce(true);
    seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  }
  const auto t0 = Clock::now();
  if (Status st = writer.finish(); !st) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    std::exit(1);
  }
  seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  const auto stats = writer.stats();
  *rows = stats.events + stats.kernels;
  return seconds;
}

constexpr int kWriterSteps = 10'000;  // ~2.4 M records

// summaries (the argument): 2 the file as recorded (format 3: summaries with the allocator's
// states), 1 without the allocator's states, 0 none (the events alone, as format 1 had them).
void BM_Writer(benchmark::State& state) {
  size_t records = 0;
  uint64_t rows = 0;
  const int summaries = static_cast<int>(state.range(0));
  const std::string path = benchPath(summaries == 2 ? "writer.sawtooth" : fmt::format("writer-{}.sawtooth", summaries));
  for (auto _ : state) state.SetIterationTime(runWriter(path, kWriterSteps, true, &records, &rows, summaries));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  state.counters["records"] = static_cast<double>(records);
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(path));
}
BENCHMARK(BM_Writer)->ArgName("summaries")->Arg(2)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

// The rows the writer wrote, read back once.
const Trace& writtenRows() {
  static Trace trace = [] {
    if (!std::filesystem::exists(benchPath("writer.sawtooth"))) {
      size_t records = 0;
      uint64_t rows = 0;
      runWriter(benchPath("writer.sawtooth"), kWriterSteps, true, &records, &rows);
    }
    auto t = readNative(benchPath("writer.sawtooth"));
    if (!t) {
      std::fprintf(stderr, "%s\n", t.error().message.c_str());
      std::exit(1);
    }
    return std::move(*t);
  }();
  return trace;
}

void check(int rc, sqlite3* db) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE) {
    std::fprintf(stderr, "sqlite: %s\n", sqlite3_errmsg(db));
    std::exit(1);
  }
}

void BM_RawSqlite(benchmark::State& state) {
  const Trace& t = writtenRows();
  const EventStore& ev = t.events;
  const std::string path = benchPath("raw.sqlite");
  for (auto _ : state) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    const auto t0 = Clock::now();
    sqlite3* db = nullptr;
    check(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr), db);
    check(sqlite3_exec(db,
                       "PRAGMA page_size=4096; PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; "
                       "PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY;",
                       nullptr, nullptr, nullptr),
          db);
    check(sqlite3_exec(db, native::schemaSql().c_str(), nullptr, nullptr, nullptr), db);
    sqlite3_stmt *event = nullptr, *kernel = nullptr;
    check(sqlite3_prepare_v2(db, "INSERT INTO events VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &event, nullptr), db);
    check(sqlite3_prepare_v2(db, "INSERT INTO kernels VALUES(?,?,?,?,?,?)", -1, &kernel, nullptr), db);
    const size_t batch = 100'000;
    for (size_t begin = 0; begin < ev.size(); begin += batch) {
      check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db);
      for (size_t i = begin; i < std::min(ev.size(), begin + batch); ++i) {
        sqlite3_bind_int64(event, 1, static_cast<int64_t>(i));
        sqlite3_bind_int64(event, 2, ev.tNs()[i]);
        sqlite3_bind_int64(event, 3, ev.device()[i]);
        sqlite3_bind_int64(event, 4, static_cast<int64_t>(ev.source()[i]));
        sqlite3_bind_int64(event, 5, static_cast<int64_t>(ev.action()[i]));
        sqlite3_bind_int64(event, 6, static_cast<int64_t>(ev.addr()[i]));
        sqlite3_bind_int64(event, 7, ev.sizes()[i]);
        sqlite3_bind_int64(event, 8, static_cast<int64_t>(ev.stream()[i]));
        sqlite3_bind_int64(event, 9, static_cast<int64_t>(ev.category()[i]));
        if (ev.phase()[i] == kNoPhase) sqlite3_bind_null(event, 10);
        else sqlite3_bind_int64(event, 10, ev.phase()[i]);
        sqlite3_bind_null(event, 11);
        if (ev.run()[i] == kNoRun) sqlite3_bind_null(event, 12);
        else sqlite3_bind_int64(event, 12, ev.run()[i]);
        check(sqlite3_step(event), db);
        sqlite3_reset(event);
      }
      // The kernels of the same stretch, in proportion.
      const size_t k0 = t.kernels.size() * begin / ev.size();
      const size_t k1 = t.kernels.size() * std::min(ev.size(), begin + batch) / ev.size();
      for (size_t k = k0; k < k1; ++k) {
        const KernelInterval& ki = t.kernels[k];
        sqlite3_bind_int64(kernel, 1, ki.device);
        sqlite3_bind_int64(kernel, 2, ki.stream);
        sqlite3_bind_int64(kernel, 3, ki.begin_ns);
        sqlite3_bind_int64(kernel, 4, ki.end_ns);
        sqlite3_bind_int64(kernel, 5, ki.name);
        sqlite3_bind_int64(kernel, 6, ki.run);
        check(sqlite3_step(kernel), db);
        sqlite3_reset(kernel);
      }
      check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db);
    }
    sqlite3_finalize(event);
    sqlite3_finalize(kernel);
    check(sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr), db);
    sqlite3_close(db);
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  const double rows = static_cast<double>(ev.size() + t.kernels.size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows));
  state.counters["rows"] = rows;
  state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(path));
}
BENCHMARK(BM_RawSqlite)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_WriteBytes(benchmark::State& state) {
  (void)writtenRows();
  const size_t bytes = std::filesystem::file_size(benchPath("writer.sawtooth"));
  const std::string path = benchPath("bytes.bin");
  std::vector<char> chunk(1 << 20, 'x');
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    for (size_t done = 0; done < bytes;) {
      const ssize_t n = ::write(fd, chunk.data(), std::min(chunk.size(), bytes - done));
      if (n <= 0) std::exit(1);
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["file_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_WriteBytes)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ChunkedSqlite(benchmark::State& state) {
  const Trace& t = writtenRows();
  const EventStore& ev = t.events;
  const std::string path = benchPath("chunked.sqlite");
  constexpr size_t kChunk = 8192;
  for (auto _ : state) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    const auto t0 = Clock::now();
    sqlite3* db = nullptr;
    check(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr), db);
    check(sqlite3_exec(db,
                       "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; CREATE TABLE event_chunks(first_seq INTEGER "
                       "PRIMARY KEY, count INTEGER, t_ns BLOB, device BLOB, source BLOB, action BLOB, addr BLOB, size "
                       "BLOB, stream BLOB, category BLOB, phase BLOB, stack BLOB, run BLOB)",
                       nullptr, nullptr, nullptr),
          db);
    sqlite3_stmt* chunk = nullptr;
    check(sqlite3_prepare_v2(db, "INSERT INTO event_chunks VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &chunk, nullptr), db);
    for (size_t begin = 0; begin < ev.size(); begin += 100'000) {
      check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db);
      for (size_t c = begin; c < std::min(ev.size(), begin + 100'000); c += kChunk) {
        const size_t n = std::min({kChunk, ev.size() - c, begin + 100'000 - c});
        auto blob = [&](int column, const auto& values) {
          sqlite3_bind_blob(chunk, column, values.data() + c, static_cast<int>(n * sizeof(values[0])), SQLITE_STATIC);
        };
        sqlite3_bind_int64(chunk, 1, static_cast<int64_t>(c));
        sqlite3_bind_int64(chunk, 2, static_cast<int64_t>(n));
        blob(3, ev.tNs());
        blob(4, ev.device());
        blob(5, ev.source());
        blob(6, ev.action());
        blob(7, ev.addr());
        blob(8, ev.sizes());
        blob(9, ev.stream());
        blob(10, ev.category());
        blob(11, ev.phase());
        blob(12, ev.stack());
        blob(13, ev.run());
        check(sqlite3_step(chunk), db);
        sqlite3_reset(chunk);
      }
      check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db);
    }
    sqlite3_finalize(chunk);
    sqlite3_close(db);
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * ev.size()));
  state.counters["events"] = static_cast<double>(ev.size());
  state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(path));
}
BENCHMARK(BM_ChunkedSqlite)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_KernelPath(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  size_t records = 0;
  uint64_t rows = 0;
  double seconds = 0;
  for (auto _ : state) {
    const double s = runWriter(benchPath("kernels.sawtooth"), steps, false, &records, &rows);
    seconds += s;
    state.SetIterationTime(s);
  }
  state.counters["us_per_step"] = seconds * 1e6 / (static_cast<double>(steps) * static_cast<double>(state.iterations()));
  state.counters["records"] = static_cast<double>(records);
}
BENCHMARK(BM_KernelPath)->ArgName("steps")->Arg(2000)->Arg(4000)->Arg(8000)->Arg(16000)->UseManualTime()
    ->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace sawtooth::bench
