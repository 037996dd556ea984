// The recorder's writer at the anatomy workload's record mix (issue 25's "the writer still keeps
// up"; bench/results/h200-2026-12-02-writer-regression.md): what the H200's 100,000-step
// recording hands the writer, step after step, with the writer's CPU time per step measured over
// the first and the last tenth of the steps. Flat: the work per record does not grow with the
// recording's length.
//
// A step of the 6-layer MLP (anatomy's defaults, adam): 39 tensor lives from the allocator tracker
// (alloc, free_requested, free_completed: 117 records, as the H200 counted), the same lives from
// c10's memory reporter (78 host records), the zero_grad / forward / backward / optimizer phases
// with a device sample at each boundary, the module calls (a Sequential of Linear + ReLU: 26
// marks; backward's allocations linked to the node their forward made, as the tracker reads it),
// the gradients and the optimizer state tagged with their modules, 56 kernels. A workspace made in
// the first forward lives to the end (cuBLAS's, through the caching allocator). The writer is
// flushed every ~3,000 records — the 25 ms batch of the H200 run (about 15 steps) — at moments
// that drift through the step, as the writer's timer cuts the stream.
//
// BM_AnatomyMix/steps:N/summaries:S/modules:M, S = 0 none, 2 format 3's (with the allocator's
// states); M = 0 without the module records. Counters: us_per_step_first / us_per_step_last (the
// writer thread's CPU time per step over the first and the last tenth), records.
// Builds against this tree and against the 2026-11-30 writer (4fcc96d, workloads/capture/: no
// summaries, no modules) for a before/after in one run: bench/capture/run_writer_anatomy.sh.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#if __has_include("capture/writer/trace_writer.h")
#include "capture/writer/trace_writer.h"
#define SAWTOOTH_BENCH_MODULES 1
#else
#include "workloads/capture/trace_writer.h"  // the 2026-11-30 tree
#define SAWTOOTH_BENCH_MODULES 0
#endif

namespace sawtooth::bench {
namespace {

using capture::CaptureRecord;
using capture::RecordKind;
using capture::RecordQueue;
using capture::TraceWriter;

// The writer thread's own CPU time: on a shared machine wall time measures the others too.
double threadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string benchPath(const std::string& name) {
  const char* dir = std::getenv("SAWTOOTH_BENCH_DATA");
  const std::filesystem::path folder = dir && *dir ? dir : "build/bench-data";
  std::filesystem::create_directories(folder);
  return (folder / name).string();
}

constexpr int kLayers = 6;
constexpr int kKernelsPerStep = 56;
constexpr int64_t kStepNs = 1'700'000;     // the H200's anatomy step: 1.7 ms
constexpr size_t kBatchRecords = 3'001;    // ~25 ms of records; not a multiple of a step's
constexpr uint64_t kThread = 1;            // the workload's thread (forward)
constexpr uint64_t kStream = 0x5555000;

// Addresses: one slot per role, so that no two live blocks share one.
enum Slot : uint64_t {
  kWeight = 0,                       // 6
  kGrad = kWeight + kLayers,         // 6, freed by the next zero_grad
  kState = kGrad + kLayers,          // 12, the optimizer's
  kInput = kState + 2 * kLayers,     // 1
  kWorkspace = kInput + 1,           // 1, the first forward's
  kLinearOut = kWorkspace + 1,       // 6, freed inside ReLU's call
  kReluOut = kLinearOut + kLayers,   // 6, saved for backward
  kLoss = kReluOut + kLayers,        // 1
  kLossGrad = kLoss + 1,             // 1
  kReluGrad = kLossGrad + 1,         // 6
  kInputGrad = kReluGrad + kLayers,  // 6
  kOptTemp = kInputGrad + kLayers,   // 7
  kSlots = kOptTemp + 7,
};

class AnatomyMaker {
 public:
  // flush() runs whenever ~25 ms of records wait, wherever the step is.
  AnatomyMaker(TraceWriter& writer, bool modules, std::function<void()> flush)
      : writer_(writer), modules_(modules), flush_(std::move(flush)) {
    for (RecordQueue* q : {&markers_, &allocator_, &host_}) writer_.addQueue(q);
#if SAWTOOTH_BENCH_MODULES
    if (modules_) {
      writer_.defineModule(0, Module{"Sequential", "Sequential", kNoModule, 0});
      for (uint32_t l = 0; l < kLayers; ++l) {
        writer_.defineModule(linear(l), Module{std::to_string(2 * l), "Linear", 0, 2048 * 2048 * 4});
        writer_.defineModule(relu(l), Module{std::to_string(2 * l + 1), "ReLU", 0, 0});
      }
    }
#endif
  }

  // One step's records; returns how many (kernels included).
  size_t step() {
    count_ = 0;
    const int64_t step_begin = t_;
    if (step_ == 0) setup();
    marker(RecordKind::StepBegin, 0, static_cast<uint64_t>(step_++));
    phase("zero_grad", [&] {
      for (int l = 0; l < kLayers; ++l) free(kGrad + l);
    });
    phase("forward", [&] {
      enter(0);
      for (uint32_t l = 0; l < kLayers; ++l) {
        enter(linear(l));
        if (step_ == 1 && l == 0) alloc(kWorkspace, 4 << 20);  // cuBLAS's workspace: lives to the end
        alloc(kLinearOut + l, kActivation);
        node_[l] = next_node_++;  // MmBackward
        exit(linear(l));
        enter(relu(l));
        alloc(kReluOut + l, kActivation);
        node_[kLayers + l] = next_node_++;  // ReluBackward
        free(kLinearOut + l);
        exit(relu(l));
      }
      exit(0);
      alloc(kLoss, 4);
      sum_node_ = next_node_++;
    });
    phase("backward", [&] {
      linked(sum_node_, [&] { alloc(kLossGrad, kActivation); });
      free(kLoss);
      for (int l = kLayers - 1; l >= 0; --l) {
        linked(node_[kLayers + l], [&] { alloc(kReluGrad + l, kActivation); });
        free(kReluOut + l);
        linked(node_[l], [&] {
          alloc(kInputGrad + l, kActivation);
          alloc(kGrad + l, kWeightBytes);
        });
        free(l == kLayers - 1 ? kLossGrad : kInputGrad + l + 1);
        free(kReluGrad + l);
      }
      free(kInputGrad + 0);
    });
    for (int l = 0; l < kLayers; ++l) tag(kGrad + l, Category::Gradient, linear(l));
    phase("optimizer", [&] {
      if (step_ == 1)
        for (int s = 0; s < 2 * kLayers; ++s) alloc(kState + s, kWeightBytes);
      for (int k = 0; k < 7; ++k) alloc(kOptTemp + k, kWeightBytes);
      for (int k = 0; k < 7; ++k) free(kOptTemp + k);
    });
    for (int s = 0; s < 2 * kLayers; ++s) tag(kState + s, Category::OptimizerState, linear(s % kLayers));
    kernels(step_begin);
    // The rest of the step's time passes on the GPU.
    t_ = std::max(t_, step_begin + kStepNs);
    return count_;
  }

  int64_t steps() const { return step_; }

 private:
  static constexpr uint32_t kNoOwner = UINT32_MAX;      // a tag naming no module (kNoModule)
  static constexpr int64_t kActivation = 2 << 20;       // batch 256 x width 2048 floats
  static constexpr int64_t kWeightBytes = 16 << 20;     // 2048 x 2048 floats
  static uint32_t linear(uint32_t l) { return 1 + 2 * l; }
  static uint32_t relu(uint32_t l) { return 2 + 2 * l; }
  static uint64_t addr(uint64_t slot) { return 0x7f0000000000ULL + slot * 0x2000000ULL; }

  void setup() {
    phase("setup", [&] {
      for (uint32_t l = 0; l < kLayers; ++l) alloc(kWeight + l, kWeightBytes);
      for (uint32_t l = 0; l < kLayers; ++l) tag(kWeight + l, Category::Parameter, linear(l));
      alloc(kInput, kActivation);
      tag(kInput, Category::Input, kNoOwner);
    });
  }

  template <typename F>
  void phase(const char* name, F body) {
    const uint32_t id = next_phase_++;
    writer_.definePhase(id, name, 0);
    marker(RecordKind::PhaseBegin, id, 0);
    sample();
    body();
    marker(RecordKind::PhaseEnd, id, 0);
    sample();
  }
  void push(RecordQueue& q, CaptureRecord& r) {
    r.t_ns = t_ += 4'000;  // ~260 records in the first 1 ms of the step
    while (!q.tryPush(r)) {
      std::fprintf(stderr, "a queue is full: flush more often\n");
      std::exit(1);
    }
    ++count_;
    if (++waiting_ < kBatchRecords) return;
    waiting_ = 0;
    flush_();
  }
  void marker(RecordKind kind, uint32_t id, uint64_t a) {
    CaptureRecord r;
    r.kind = kind;
    r.id = id;
    r.addr = a;
    push(markers_, r);
  }
  void sample() {
    CaptureRecord r;
    r.kind = RecordKind::Sample;
    r.size = 1 << 30;
    r.addr = 140ULL << 30;
    push(markers_, r);
  }
  void tag(uint64_t slot, Category c, uint32_t module) {
    CaptureRecord r;
    r.kind = RecordKind::Tag;
    r.addr = addr(slot);
    r.category = c;
#if SAWTOOTH_BENCH_MODULES
    if (modules_) r.module = module;
#else
    (void)module;
#endif
    push(markers_, r);
  }
  void enter(uint32_t module) { moduleMark(true, module); }
  void exit(uint32_t module) { moduleMark(false, module); }
  void moduleMark([[maybe_unused]] bool enter, [[maybe_unused]] uint32_t module) {
#if SAWTOOTH_BENCH_MODULES
    if (!modules_) return;
    CaptureRecord r;
    r.kind = enter ? RecordKind::ModuleEnter : RecordKind::ModuleExit;
    r.module = module;
    r.stream = kThread;
    r.pass = Pass::Forward;
    r.node_known = true;
    r.node_thread = static_cast<uint32_t>(kThread);
    r.node_seq = next_node_;
    push(markers_, r);
#endif
  }
  // Allocations made while autograd runs the node numbered `node`.
  template <typename F>
  void linked(uint64_t node, F body) {
    linked_node_ = static_cast<int64_t>(node);
    body();
    linked_node_ = -1;
  }
  CaptureRecord memory(Action action, uint64_t slot, int64_t size, Source source) {
    CaptureRecord r;
    r.kind = RecordKind::Memory;
    r.action = action;
    r.addr = addr(slot);
    r.size = size;
    r.source = source;
    r.stream = kStream;
#if SAWTOOTH_BENCH_MODULES
    if (modules_ && linked_node_ >= 0 && action == Action::Alloc) {
      r.node_known = true;
      r.node_thread = static_cast<uint32_t>(kThread);
      r.node_seq = static_cast<uint64_t>(linked_node_);
    }
#endif
    return r;
  }
  void alloc(uint64_t slot, int64_t size) {
    sizes_[slot] = size;
    CaptureRecord tracker = memory(Action::Alloc, slot, size, Source::Allocator);
    push(allocator_, tracker);
    CaptureRecord report = memory(Action::Alloc, slot, size, Source::Host);
    push(host_, report);
  }
  void free(uint64_t slot) {
    const int64_t size = sizes_[slot];
    if (size == 0) return;  // (the first zero_grad: no gradients yet)
    CaptureRecord requested = memory(Action::FreeRequested, slot, size, Source::Allocator);
    push(allocator_, requested);
    CaptureRecord completed = memory(Action::FreeCompleted, slot, size, Source::Allocator);
    push(allocator_, completed);
    CaptureRecord report = memory(Action::FreeCompleted, slot, size, Source::Host);
    push(host_, report);
    sizes_[slot] = 0;
  }
  void kernels(int64_t step_begin) {
    // Stamped inside the step that just ran, delivered late as CUPTI's buffers are.
    std::vector<KernelInterval> ks;
    for (int k = 0; k < kKernelsPerStep; ++k) {
      KernelInterval ki;
      ki.begin_ns = step_begin + k * (kStepNs / kKernelsPerStep);
      ki.end_ns = ki.begin_ns + kStepNs / kKernelsPerStep / 2;
      ki.name = static_cast<uint32_t>(k % 12);
      ki.stream = 7;
      ks.push_back(ki);
    }
    std::vector<std::pair<uint32_t, std::string>> names;
    if (step_ == 1)
      for (uint32_t i = 0; i < 12; ++i) names.emplace_back(i, "ampere_sgemm_128x64_nn#" + std::to_string(i));
    writer_.addKernels(std::move(ks), std::move(names));
    count_ += kKernelsPerStep;
  }

  TraceWriter& writer_;
  bool modules_;
  std::function<void()> flush_;
  RecordQueue markers_{1 << 16}, allocator_{1 << 16}, host_{1 << 16};
  int64_t t_ = 1'000'000;
  int64_t step_ = 0;
  uint32_t next_phase_ = 0;
  uint64_t next_node_ = 1;
  uint64_t node_[2 * kLayers] = {};
  uint64_t sum_node_ = 0;
  int64_t linked_node_ = -1;
  int64_t sizes_[kSlots] = {};
  size_t count_ = 0;
  size_t waiting_ = 0;
};

struct AnatomyResult {
  double first_s = 0, last_s = 0, total_s = 0;
  size_t records = 0;
  uint64_t rows = 0;
};

AnatomyResult runAnatomy(const std::string& path, int steps, int summaries, bool modules) {
#if SAWTOOTH_BENCH_MODULES
  NativeWriterOptions options;
  options.recording = true;
  options.summaries = summaries > 0;
  options.allocator_checkpoints = summaries > 1;
#else
  (void)summaries;
  NativeWriterOptions options{.recording = true};
#endif
  auto file = NativeWriter::create(path, OutputClaim::Existing::Replace, options);
  if (!file) {
    std::fprintf(stderr, "%s\n", file.error().message.c_str());
    std::exit(1);
  }
  TraceWriter writer(std::move(*file), 0);
  writer.defineRun(0, Run{"adam", "anatomy", {}, {}});
  AnatomyResult out;
  const int64_t tenth = std::max(1, steps / 10);
  int64_t step = 0;
  AnatomyMaker maker(writer, modules, [&] {
    const double t0 = threadSeconds();
    writer.flushOnce(true);
    const double dt = threadSeconds() - t0;
    out.total_s += dt;
    if (step < tenth) out.first_s += dt;
    if (step >= steps - tenth) out.last_s += dt;
  });
  for (step = 0; step < steps; ++step) out.records += maker.step();
  step = steps - 1;
  const double t0 = threadSeconds();
  if (Status st = writer.finish(); !st) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    std::exit(1);
  }
  out.total_s += threadSeconds() - t0;
  const auto stats = writer.stats();
  out.rows = stats.events + stats.kernels;
  return out;
}

void BM_AnatomyMix(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  const int summaries = static_cast<int>(state.range(1));
  const bool modules = state.range(2) != 0;
  const int tenth = std::max(1, steps / 10);
  AnatomyResult r;
  for (auto _ : state) {
    r = runAnatomy(benchPath("anatomy-mix.sawtooth"), steps, summaries, modules);
    state.SetIterationTime(r.total_s);
  }
  state.counters["us_per_step_first"] = r.first_s * 1e6 / tenth;
  state.counters["us_per_step_last"] = r.last_s * 1e6 / tenth;
  state.counters["us_per_step"] = r.total_s * 1e6 / steps;
  state.counters["records"] = static_cast<double>(r.records);
  state.counters["rows"] = static_cast<double>(r.rows);
  state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(benchPath("anatomy-mix.sawtooth")));
}
BENCHMARK(BM_AnatomyMix)
    ->ArgNames({"steps", "summaries", "modules"})
#if SAWTOOTH_BENCH_MODULES
    ->ArgsProduct({{2'000, 20'000}, {0, 2}, {0, 1}})
#else
    ->ArgsProduct({{2'000, 20'000}, {0}, {0}})  // (the 2026-11-30 writer: neither)
#endif
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace sawtooth::bench
