// Any length (issue 25): recordings written by the real writer (capture/writer/trace_writer.h) at
// anatomy's shape, of 25 M and 250 M events, opened from their summaries, side by side with
// today's path (the whole file read into memory, then analysed) where that still fits:
//   BM_OpenFromSummaries  open -> every series of every device drawn at 2,000 columns over the
//                         whole run, the stacked categories, the peaks (what the first paint and
//                         the header need), in a fresh process: wall time and peak RSS;
//   BM_OpenWhole          the same figures the way the app opens a file today (readNative +
//                         TraceAnalysis), fresh process (25 M only: 250 M does not fit);
//   BM_Zoom1Percent       random windows of 1 % of the run (time axis), allocated, reserved and
//                         the stacked categories at 2,000 columns each: the slowest window;
//   BM_EventsFirstPage    the app's events table (io/event_pages.h): open, its first 256 rows, 256
//                         rows at a random place;
//   BM_EventsFilter       a filter over every event (one pass), and a page of its rows;
//   BM_EventsSortBySize   the events table sorted by size, largest first (one pass keeping the
//                         first 100,000 rows), and its first page;
//   BM_MomentAtPeak       the allocator, live bytes and modules views at the largest device's peak
//                         (core/analysis/summary_moment.h: the file's tables, the nearest stored
//                         allocator state and the events after it), in a fresh process: time, RSS;
//   BM_MomentScrub        the same at random allocator events of that device: the slowest;
//   BM_SiteTotals         what each site of that device allocated over the file (a comparison's
//                         totals): one pass over every event;
//   BM_WholeTraceFacts    the report's facts (core/analysis/summary_report.h): each device's category
//                         peaks and the first out-of-memory, by one pass over every allocator
//                         event (/0) and from the summaries' indexes (/1);
//   BM_Upgrade            (with --upgrade) the same recording written as format 1 then converted.
// The recordings are made on first use in $SAWTOOTH_BENCH_DATA (default build/bench-data):
// about 40 B an event (25 M: 1 GB; 250 M: 10 GB) — delete them after. Sizes from
// $ANY_LENGTH_EVENTS (default "25000000,250000000").
// Run by bench/core/run_any_length_benchmark.sh, which writes bench/results/cpu-any-length-<date>.md.

#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "capture/writer/trace_writer.h"
#include "core/analysis/overlay_comparison.h"
#include "core/analysis/summary_moment.h"
#include "core/analysis/summary_report.h"
#include "core/analysis/timeline_model.h"
#include "core/analysis/trace_analysis.h"
#include "core/io/event_pages.h"
#include "core/io/file_moments.h"
#include "core/io/native_format.h"
#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"

extern char** environ;

namespace sawtooth::bench {
namespace {

using capture::CaptureRecord;
using capture::RecordKind;
using capture::RecordQueue;
using capture::TraceWriter;
using Clock = std::chrono::steady_clock;

constexpr int kLayers = 6;
constexpr int kColumns = 2000;
const char* g_self = nullptr;

std::string dataPath(const std::string& name) {
  const char* dir = std::getenv("SAWTOOTH_BENCH_DATA");
  const std::filesystem::path folder = dir && *dir ? dir : "build/bench-data";
  std::filesystem::create_directories(folder);
  return (folder / name).string();
}

std::vector<int64_t> sizes() {
  const char* env = std::getenv("ANY_LENGTH_EVENTS");
  std::string text = env && *env ? env : "25000000,250000000";
  std::vector<int64_t> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) out.push_back(std::stoll(part));
  return out;
}

// Anatomy's steps through the writer (bench/capture/bench_writer.cpp's shape, without kernels): parameters and
// optimizer state once, then per step zero_grad, forward (activations and temporaries),
// backward (gradients), optimizer, with tags, samples and c10's host reports.
class Recorder {
 public:
  Recorder(TraceWriter& writer, RecordQueue& queue) : writer_(writer), queue_(queue) {}
  void step() {
    const uint64_t base = 0x7f0000000000ULL;
    if (step_ == 0)
      for (int l = 0; l < 3 * kLayers; ++l) alloc(base + 0x200000 + l * 0x10000, 0x10000);
    marker(RecordKind::StepBegin, 0, static_cast<uint64_t>(step_++));
    phase("zero_grad", [&] {
      for (int l = 0; l < kLayers; ++l) free(base + 0x100000 + l * 0x10000, 0x10000);
    });
    phase("forward", [&] {
      for (int l = 0; l < kLayers; ++l) {
        alloc(base + 0x800000 + l * 0x20000, 0x20000 + (step_ % 7) * 0x800);
        alloc(base + 0x400000, 0x8000);
        free(base + 0x400000, 0x8000);
      }
    });
    phase("backward", [&] {
      for (int l = kLayers - 1; l >= 0; --l) {
        alloc(base + 0x100000 + l * 0x10000, 0x10000);
        alloc(base + 0x400000, 0x8000);
        free(base + 0x400000, 0x8000);
        free(base + 0x800000 + l * 0x20000, 0x20000 + ((step_ - 1) % 7) * 0x800);
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
  }
  int64_t steps() const { return step_; }

 private:
  template <typename F>
  void phase(const char* name, F body) {
    const uint32_t id = next_phase_++;
    writer_.definePhase(id, name, 0);
    marker(RecordKind::PhaseBegin, id, 0);
    sample();
    body();
    marker(RecordKind::PhaseEnd, id, 0);
  }
  void push(CaptureRecord r) {
    r.t_ns = t_ += 700;
    while (!queue_.tryPush(r)) writer_.flushOnce(true);
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
    memory(Action::Alloc, addr, size, Source::Host);
  }
  void free(uint64_t addr, int64_t size) {
    memory(Action::FreeRequested, addr, size, Source::Allocator);
    memory(Action::FreeCompleted, addr, size, Source::Allocator);
    memory(Action::FreeCompleted, addr, size, Source::Host);
  }
  void tag(uint64_t addr, Category c) {
    CaptureRecord r;
    r.kind = RecordKind::Tag;
    r.addr = addr;
    r.category = c;
    push(r);
  }
  void sample() {
    CaptureRecord r;
    r.kind = RecordKind::Sample;
    r.size = (1LL << 30) + (step_ % 100) * (1 << 20);
    r.addr = 140ULL << 30;
    push(r);
  }

  TraceWriter& writer_;
  RecordQueue& queue_;
  int64_t t_ = 1'000'000;
  int64_t step_ = 0;
  uint32_t next_phase_ = 0;
};

// The recording of about `events` events, written once (the writer's own seconds on stderr).
std::string recording(int64_t events, bool summaries = true) {
  const std::string path = dataPath(fmt::format("any_length_{}m{}.sawtooth", events / 1'000'000, summaries ? "" : "_v1"));
  if (std::filesystem::exists(path)) return path;
  const auto t0 = Clock::now();
  NativeWriterOptions options;
  options.recording = true;
  options.summaries = summaries;
  auto file = NativeWriter::create(path + ".partial", OutputClaim::Existing::Replace, options);
  if (!file) {
    std::fprintf(stderr, "%s\n", file.error().message.c_str());
    std::exit(1);
  }
  RecordQueue queue(1 << 20);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&queue);
  writer.defineRun(0, Run{"bench", "anatomy", {}, {}});
  Recorder recorder(writer, queue);
  while (static_cast<int64_t>(writer.stats().events) < events) {
    for (int s = 0; s < 500; ++s) recorder.step();
    writer.flushOnce(true);
  }
  if (Status st = writer.finish(); !st) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    std::exit(1);
  }
  std::filesystem::rename(path + ".partial", path);
  std::fprintf(stderr, "wrote %s: %llu events in %.1f s (%lld steps, %.0f MB)\n", path.c_str(),
               static_cast<unsigned long long>(writer.stats().events),
               std::chrono::duration<double>(Clock::now() - t0).count(), static_cast<long long>(recorder.steps()),
               static_cast<double>(std::filesystem::file_size(path)) / 1e6);
  return path;
}

struct Figures {
  double seconds = 0;
  double rss_mb = 0;
  double points = 0;  // drawn
  double reads = 0;   // nodes and events read
};

// This process' peak resident memory (VmHWM: its own address space's, unlike getrusage's, which
// keeps the spawning process' across exec).
double rssMb() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
  std::fclose(f);
  return kb / 1024.0;
}

// The first paint's figures from the summaries.
Figures openFromSummaries(const std::string& path) {
  const auto t0 = Clock::now();
  Figures f;
  auto place = summariesOf(path);
  if (!place) throw std::runtime_error(place.error().message);
  auto source = native::FileSummarySource::open(*place);
  if (!source) throw std::runtime_error(source.error().message);
  TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  if (Status st = model.refresh(); !st) throw std::runtime_error(st.error().message);
  const double x0 = model.xMin(true), x1 = model.xMax(true);
  for (const auto& d : model.devices()) {
    for (const auto& s : d.series) {
      if (s.series >= summary::kFirstCategoryLayer) continue;
      auto points = model.query(d.device, s.series, true, x0, x1, kColumns);  // (drawn one by one: the first paint)
      if (!points) throw std::runtime_error(points.error().message);
      f.points += static_cast<double>(points->size());
      f.reads += static_cast<double>(model.lastReads().nodes + model.lastReads().events);
    }
    auto stack = model.categories(d.device, true, x0, x1, kColumns);
    if (!stack) throw std::runtime_error(stack.error().message);
    for (int series : {summary::kAllocated, summary::kReserved})
      if (auto peak = model.peak(d.device, series); !peak) throw std::runtime_error(peak.error().message);
  }
  f.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  f.rss_mb = rssMb();
  return f;
}

// The file's tables (EventPages, as the app opens them), its timeline model from the summaries,
// and the device with the largest peak.
struct MomentSource {
  FileMoments file;
  DeviceId device = 0;
  int64_t events = 0;  // its allocator events
};
MomentSource openMoments(const std::string& path) {
  auto file = openFileMoments(path);
  if (!file) throw std::runtime_error(file.error().message);
  MomentSource m{std::move(*file)};
  auto device = m.file.largestPeakDevice();
  if (!device || !*device) throw std::runtime_error("no device with allocator events");
  m.device = **device;
  m.events = m.file.allocatorEvents(m.device);
  return m;
}

// What the three views are handed at one moment; `reads` counts the events replayed.
void momentViews(MomentSource& m, std::optional<int64_t> position, Figures& f) {
  const Trace& tables = m.file.tables();
  auto moment = m.file.at(m.device, position);
  if (!moment) throw std::runtime_error(moment.error().message);
  const LiveBytes live = liveBytesOf(tables, *moment);
  const ModulesAt modules = modulesOf(tables, *moment);
  const auto map = segmentMapOf(tables, *moment);
  f.points += static_cast<double>(live.allocations + (map ? map->state.segments.size() : 0) + modules.memory.rows.size());
  f.reads += static_cast<double>(moment->replayed);
}

Figures momentAtPeak(const std::string& path) {
  const auto t0 = Clock::now();
  Figures f;
  MomentSource m = openMoments(path);
  momentViews(m, std::nullopt, f);
  f.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  f.rss_mb = rssMb();
  return f;
}

// Today's path: the whole file in memory, analysed, the same figures drawn from its pyramids.
Figures openWhole(const std::string& path) {
  const auto t0 = Clock::now();
  Figures f;
  auto trace = readNative(path);
  if (!trace) throw std::runtime_error(trace.error().message);
  TraceAnalysis analysis(std::make_shared<const Trace>(std::move(*trace)));
  const double x0 = analysis.xMin(true), x1 = analysis.xMax(true);
  for (const auto& d : analysis.devices())
    for (const auto& l : d->lines) f.points += static_cast<double>(l.lod.query(l.series->axis->xs(true), l.series->start, x0, x1, kColumns).size());
  f.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  f.rss_mb = rssMb();
  return f;
}

// A fresh process for each open, so that its peak RSS is its own.
Figures inChild(const char* what, const std::string& path) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<std::string> args{g_self, "--child", what, path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, g_self, &actions, nullptr, argv.data(), environ) != 0) std::exit(1);
  close(fds[1]);
  std::string out;
  char buffer[256];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Figures f;
  if (std::sscanf(out.c_str(), "%lf %lf %lf %lf", &f.seconds, &f.rss_mb, &f.points, &f.reads) != 4)
    throw std::runtime_error("child failed: " + out);
  return f;
}

void report(benchmark::State& state, const Figures& f, int64_t events) {
  state.SetIterationTime(f.seconds);
  state.counters["peak_rss_mb"] = f.rss_mb;
  state.counters["points"] = f.points;
  state.counters["reads"] = f.reads;
  state.counters["events"] = static_cast<double>(events);
}

void BM_OpenFromSummaries(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  Figures f;
  for (auto _ : state) {
    f = inChild("summaries", path);
    state.SetIterationTime(f.seconds);
  }
  report(state, f, state.range(0));
  state.counters["file_mb"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
}

void BM_OpenWhole(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  Figures f;
  for (auto _ : state) {
    f = inChild("whole", path);
    state.SetIterationTime(f.seconds);
  }
  report(state, f, state.range(0));
}

void BM_Zoom1Percent(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  auto place = summariesOf(path);
  auto source = native::FileSummarySource::open(*place);
  TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  (void)model.refresh();
  std::mt19937_64 rng(25);
  const double lo = model.xMin(true), hi = model.xMax(true), width = (hi - lo) / 100;
  double slowest = 0, total = 0, reads = 0;
  int windows = 0;
  for (auto _ : state) {
    const double x0 = lo + std::uniform_real_distribution<double>(0, hi - lo - width)(rng);
    const auto t0 = Clock::now();
    for (const auto& d : model.devices()) {
      auto lines = model.queryMany(d.device, {summary::kAllocated, summary::kReserved}, true, x0, x0 + width, kColumns);
      if (!lines) state.SkipWithError(lines.error().message.c_str());
      reads += static_cast<double>(model.lastReads().nodes + model.lastReads().events);
      if (d.find(summary::kDeviceUsed))
        if (auto used = model.query(d.device, summary::kDeviceUsed, true, x0, x0 + width, kColumns); !used)
          state.SkipWithError(used.error().message.c_str());
      auto stack = model.categories(d.device, true, x0, x0 + width, kColumns);
      if (!stack) state.SkipWithError(stack.error().message.c_str());
      reads += static_cast<double>(model.lastReads().nodes + model.lastReads().events);
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    state.SetIterationTime(s);
    slowest = std::max(slowest, s);
    total += s;
    ++windows;
  }
  state.counters["slowest_ms"] = slowest * 1e3;
  state.counters["mean_ms"] = total / windows * 1e3;
  state.counters["reads_per_window"] = reads / windows;
  state.counters["events"] = static_cast<double>(state.range(0));
}

// What the chart asks for, a window of 1 % at a time: one file's frame, and the frame of the same
// file compared with itself (each side on a connection of its own, as two tabs' files), drawn from
// both summaries through the overlay, in turn in one run (each first every other window).
struct FrameSides {
  std::unique_ptr<TimelineModel> one;
  std::optional<OverlayComparison> two;
  double open_s = 0;
};

FrameSides openFrameSides(const std::string& path) {
  FrameSides f;
  auto place = summariesOf(path);
  auto source = native::FileSummarySource::open(*place);
  if (!source) throw std::runtime_error(source.error().message);
  f.one = std::make_unique<TimelineModel>(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  if (Status st = f.one->refresh(); !st) throw std::runtime_error(st.error().message);
  const auto t0 = Clock::now();
  auto side = [&](const char* name) {
    auto pages = EventPages::open(path);
    if (!pages) throw std::runtime_error(pages.error().message);
    auto file = native::FileSummarySource::open(*place);
    if (!file) throw std::runtime_error(file.error().message);
    return OverlaySide{std::shared_ptr<summary::SummarySource>(std::move(*file)), (*pages)->tables(), name, {}};
  };
  auto overlay = overlayTraces(side("a"), side("b"), Alignment::Time);
  if (!overlay) throw std::runtime_error(overlay.error().message);
  f.open_s = std::chrono::duration<double>(Clock::now() - t0).count();
  f.two = std::move(*overlay);
  return f;
}

void BM_FrameAndOverlayFrame1Percent(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  FrameSides sides = openFrameSides(path);
  std::mt19937_64 rng(27);
  const double lo = sides.one->xMin(true), hi = sides.one->xMax(true), width = (hi - lo) / 100;
  double slowest[2] = {0, 0}, total[2] = {0, 0};
  int windows = 0;
  for (auto _ : state) {
    const double x0 = lo + std::uniform_real_distribution<double>(0, hi - lo - width)(rng);
    TimelineRequest request;
    request.x0 = x0;
    request.x1 = x0 + width;
    request.columns = kColumns;
    request.stacked = true;
    double both = 0;
    for (int turn = 0; turn < 2; ++turn) {
      const int k = (turn + windows) % 2;  // each goes first every other window
      const auto t0 = Clock::now();
      auto frame = frameOf(k == 0 ? *sides.one : *sides.two->model, request);
      if (!frame) return state.SkipWithError(frame.error().message.c_str());
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      slowest[k] = std::max(slowest[k], s);
      total[k] += s;
      both += s;
    }
    state.SetIterationTime(both);
    ++windows;
  }
  state.counters["one_slowest_ms"] = slowest[0] * 1e3;
  state.counters["one_mean_ms"] = total[0] / windows * 1e3;
  state.counters["overlay_slowest_ms"] = slowest[1] * 1e3;
  state.counters["overlay_mean_ms"] = total[1] / windows * 1e3;
  state.counters["overlay_open_ms"] = sides.open_s * 1e3;
  state.counters["peak_rss_mb"] = rssMb();
  state.counters["events"] = static_cast<double>(state.range(0));
}

// The app's events table for a file past the whole-file budget (io/event_pages.h): the file's
// tables opened, the first page of 256 rows, and a page at a random row.
void BM_EventsFirstPage(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  std::mt19937_64 rng(26);
  double slowest = 0, open_slowest = 0, page_slowest = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto pages = EventPages::open(path);
    if (!pages) return state.SkipWithError(pages.error().message.c_str());
    auto rows = (*pages)->select(EventQuery{});
    const double opened = std::chrono::duration<double>(Clock::now() - t0).count();
    (void)(*pages)->page(*rows, 0, 256);
    const auto t1 = Clock::now();
    const uint64_t at = std::uniform_int_distribution<uint64_t>(0, rows->size - 256)(rng);
    (void)(*pages)->page(*rows, at, 256);
    const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
    state.SetIterationTime(sec);
    slowest = std::max(slowest, sec);
    open_slowest = std::max(open_slowest, opened);
    page_slowest = std::max(page_slowest, std::chrono::duration<double>(Clock::now() - t1).count());
  }
  state.counters["slowest_ms"] = slowest * 1e3;
  state.counters["open_slowest_ms"] = open_slowest * 1e3;
  state.counters["random_page_slowest_ms"] = page_slowest * 1e3;
  state.counters["events"] = static_cast<double>(state.range(0));
}

// A filter over the whole file (one pass), then a page past its middle.
void BM_EventsFilter(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  auto pages = EventPages::open(path);
  if (!pages) return state.SkipWithError(pages.error().message.c_str());
  uint64_t matched = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto rows = (*pages)->select(EventQuery{"action:alloc", EventColumn::Index, false});
    if (!rows) return state.SkipWithError(rows.error().message.c_str());
    (void)(*pages)->page(*rows, rows->size / 2, 256);
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
    matched = rows->size;
  }
  state.counters["matched"] = static_cast<double>(matched);
  state.counters["events"] = static_cast<double>(state.range(0));
}

// The events table sorted by size, largest first: one pass keeping the first rows, its first page.
void BM_EventsSortBySize(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  auto pages = EventPages::open(path);
  if (!pages) return state.SkipWithError(pages.error().message.c_str());
  uint64_t kept = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto rows = (*pages)->select(EventQuery{"", EventColumn::Size, true});
    if (!rows) return state.SkipWithError(rows.error().message.c_str());
    auto page = (*pages)->page(*rows, 0, 256);
    if (!page) return state.SkipWithError(page.error().message.c_str());
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
    kept = rows->size;
  }
  state.counters["kept"] = static_cast<double>(kept);
  state.counters["events"] = static_cast<double>(state.range(0));
}

void BM_MomentAtPeak(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  Figures f;
  for (auto _ : state) {
    f = inChild("moment", path);
    state.SetIterationTime(f.seconds);
  }
  report(state, f, state.range(0));
}

void BM_MomentScrub(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  MomentSource m = openMoments(path);
  std::mt19937_64 rng(25);
  double slowest = 0, replayed = 0;
  for (auto _ : state) {
    const int64_t at = std::uniform_int_distribution<int64_t>(0, m.events - 1)(rng);
    Figures f;
    const auto t0 = Clock::now();
    momentViews(m, at, f);
    const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
    state.SetIterationTime(sec);
    slowest = std::max(slowest, sec);
    replayed = std::max(replayed, f.reads);
  }
  state.counters["slowest_ms"] = slowest * 1e3;
  state.counters["most_replayed"] = replayed;
  state.counters["events"] = static_cast<double>(state.range(0));
}

// What each site of the largest device allocated over the whole file (a comparison's totals): one
// pass over every event.
void BM_SiteTotals(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  MomentSource m = openMoments(path);
  size_t sites = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto totals = allocatedTotalsFromSummaries(m.file.model->source(), m.device);
    if (!totals) return state.SkipWithError(totals.error().message.c_str());
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
    sites = totals->size();
  }
  state.counters["sites"] = static_cast<double>(sites);
  state.counters["peak_rss_mb"] = rssMb();
  state.counters["events"] = static_cast<double>(state.range(0));
}

// The report's facts: each device's category peaks (the plan against the count) and the first
// out-of-memory, by the pass over every allocator event of every device (second argument 0) or
// from the summaries' indexes (1).
void BM_WholeTraceFacts(benchmark::State& state) {
  const std::string path = recording(state.range(0));
  MomentSource m = openMoments(path);
  size_t devices = 0;
  const bool indexed = state.range(1) != 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto facts = indexed ? wholeTraceFacts(m.file.model->source(), m.file.tables())
                         : wholeTraceFactsByPass(m.file.model->source(), m.file.tables());
    if (!facts) return state.SkipWithError(facts.error().message.c_str());
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
    devices = facts->category_peaks.size();
  }
  state.counters["devices"] = static_cast<double>(devices);
  state.counters["peak_rss_mb"] = rssMb();
  state.counters["events"] = static_cast<double>(state.range(0));
}

// Format 1's file of the same recording, converted: the copy and the summaries' pass, in a fresh
// process for its RSS.
void BM_Upgrade(benchmark::State& state) {
  const std::string v1 = recording(state.range(0), false);
  Figures f;
  for (auto _ : state) {
    f = inChild("upgrade", v1);
    state.SetIterationTime(f.seconds);
  }
  report(state, f, state.range(0));
}

void registerAll() {
  for (int64_t n : sizes()) {
    benchmark::RegisterBenchmark("BM_OpenFromSummaries", BM_OpenFromSummaries)->Arg(n)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
    if (n <= 30'000'000)
      benchmark::RegisterBenchmark("BM_OpenWhole", BM_OpenWhole)->Arg(n)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_Zoom1Percent", BM_Zoom1Percent)->Arg(n)->UseManualTime()->Iterations(40)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_FrameAndOverlayFrame1Percent", BM_FrameAndOverlayFrame1Percent)->Arg(n)->UseManualTime()->Iterations(40)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_EventsFirstPage", BM_EventsFirstPage)->Arg(n)->UseManualTime()->Iterations(40)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_EventsFilter", BM_EventsFilter)->Arg(n)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_EventsSortBySize", BM_EventsSortBySize)->Arg(n)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_MomentAtPeak", BM_MomentAtPeak)->Arg(n)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_SiteTotals", BM_SiteTotals)->Arg(n)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_WholeTraceFacts", BM_WholeTraceFacts)->Args({n, 0})->Args({n, 1})->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_MomentScrub", BM_MomentScrub)->Arg(n)->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
    if (std::getenv("ANY_LENGTH_UPGRADE"))
      benchmark::RegisterBenchmark("BM_Upgrade", BM_Upgrade)->Arg(n)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
  }
}

int child(const std::string& what, const std::string& path) {
  try {
    Figures f;
    if (what == "summaries") f = openFromSummaries(path);
    else if (what == "whole") f = openWhole(path);
    else if (what == "moment") f = momentAtPeak(path);
    else if (what == "upgrade") {
      const auto t0 = Clock::now();
      const std::string out = path + ".upgraded";
      if (Status st = upgradeNative(path, out); !st) throw std::runtime_error(st.error().message);
      f.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      f.rss_mb = rssMb();
      std::filesystem::remove(out);
    }
    std::printf("%.6f %.1f %.0f %.0f\n", f.seconds, f.rss_mb, f.points, f.reads);
    return 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}

}  // namespace
}  // namespace sawtooth::bench

int main(int argc, char** argv) {
  static std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  sawtooth::bench::g_self = self.c_str();
  if (argc == 4 && std::strcmp(argv[1], "--child") == 0) return sawtooth::bench::child(argv[2], argv[3]);
  sawtooth::bench::registerAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
