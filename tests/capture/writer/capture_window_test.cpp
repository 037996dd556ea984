// Windows of a recording (the last N events; steps A to B) through the real writer and file, and
// a write that fails: checked against the whole stream simulated here, event by event.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/analysis/category_series.h"
#include "core/io/native_format.h"
#include "capture/writer/trace_writer.h"

namespace sawtooth::capture {
namespace {

std::string tempFile(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "sawtooth-writer-tests";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// A training-like stream: parameters tagged once, then steps that allocate an activation in
// forward, free it in backward, and a block that lives across steps; a driver segment at the
// start. Remembers what is allocated after every allocator event.
class Stream {
 public:
  Stream(TraceWriter& writer, RecordQueue& queue) : writer_(writer), queue_(queue) {}

  void driverAlloc(uint64_t addr, int64_t size) { push(memory(Action::Alloc, addr, size, Source::Driver)); }
  void alloc(uint64_t addr, int64_t size) {
    push(memory(Action::Alloc, addr, size, Source::Allocator));
    allocated_ += size;
    live_[addr] = size;
  }
  void free(uint64_t addr) {
    const int64_t size = live_.at(addr);
    push(memory(Action::FreeRequested, addr, size, Source::Allocator));
    push(memory(Action::FreeCompleted, addr, size, Source::Allocator));
    allocated_ -= size;
    live_.erase(addr);
  }
  void tag(uint64_t addr, Category c) {
    CaptureRecord r = marker(RecordKind::Tag, 0);
    r.addr = addr;
    r.category = c;
    push(r);
  }
  void step(int64_t n) {
    CaptureRecord r = marker(RecordKind::StepBegin, 0);
    r.addr = static_cast<uint64_t>(n);
    push(r);
  }
  void phase(const std::string& name, bool begin) {
    if (begin) {
      writer_.definePhase(next_phase_, name, 0);
      open_.push_back(next_phase_);
      push(marker(RecordKind::PhaseBegin, next_phase_++));
    } else {
      push(marker(RecordKind::PhaseEnd, open_.back()));
      open_.pop_back();
    }
  }
  // One step of the loop: forward makes an activation and a temporary, backward frees the
  // activation and makes a gradient that the next step's zero_grad frees.
  void trainingStep(int64_t n) {
    step(n);
    phase("zero_grad", true);
    if (live_.count(kGrad)) free(kGrad);
    phase("zero_grad", false);
    phase("forward", true);
    alloc(kAct, 4096);
    alloc(kTmp, 64);
    free(kTmp);
    phase("forward", false);
    phase("backward", true);
    alloc(kGrad, 1024);
    free(kAct);
    phase("backward", false);
    tag(kGrad, Category::Gradient);
  }
  int64_t allocated() const { return allocated_; }
  int64_t now() const { return t_; }

  static constexpr uint64_t kParam = 0x1000, kAct = 0x20000, kTmp = 0x40000, kGrad = 0x60000;

 private:
  CaptureRecord memory(Action a, uint64_t addr, int64_t size, Source s) {
    CaptureRecord r;
    r.kind = RecordKind::Memory;
    r.action = a;
    r.addr = addr;
    r.size = size;
    r.source = s;
    return r;
  }
  CaptureRecord marker(RecordKind kind, uint32_t id) {
    CaptureRecord r;
    r.kind = kind;
    r.id = id;
    return r;
  }
  void push(CaptureRecord r) {
    r.t_ns = t_ += 10;
    ASSERT_TRUE(queue_.tryPush(r));
  }
  TraceWriter& writer_;
  RecordQueue& queue_;
  int64_t t_ = 1000;
  int64_t allocated_ = 0;
  std::map<uint64_t, int64_t> live_;
  uint32_t next_phase_ = 0;
  std::vector<uint32_t> open_;
};

// Allocated bytes after each allocator event of device 0 in the file, from its baseline.
std::vector<int64_t> allocatedSeries(const Trace& t) {
  const DeviceInfo* d = t.device(0);
  int64_t a = d ? d->baseline_allocated : 0;
  std::vector<int64_t> out;
  for (size_t i = 0; i < t.events.size(); ++i) {
    if (t.events.source()[i] != Source::Allocator) continue;
    a += allocatedSign(t.events.action()[i]) * t.events.sizes()[i];
    out.push_back(a);
  }
  return out;
}

TEST(CaptureWindow, KeepsTheLastEventsOnTheBaselineOfWhatWasAliveBefore) {
  const std::string path = tempFile("window.sawtooth");
  auto file = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
  ASSERT_TRUE(file.ok()) << file.error().message;
  RecordQueue queue(1 << 14);
  WindowOptions window;
  window.last_events = 5000;
  TraceWriter writer(std::move(*file), 0, window);
  writer.addQueue(&queue);
  Stream s(writer, queue);
  s.driverAlloc(0x9000000, 2 << 20);  // a segment the driver handed out at the start, kept
  s.alloc(Stream::kParam, 1 << 20);
  s.tag(Stream::kParam, Category::Parameter);
  for (int64_t n = 0; n < 3000; ++n) {
    s.trainingStep(n);
    if (n % 100 == 99) writer.flushOnce(true);
    // The file keeps a bounded number of rows while the recording goes on (a quarter of slack).
    if (n % 100 == 99) {
      auto partial = readNative(path);
      ASSERT_TRUE(partial.ok()) << partial.error().message;  // a killed recording opens too
      EXPECT_LE(partial->events.size(), window.last_events + window.last_events / 4 + 4096 + 2);
    }
  }
  ASSERT_TRUE(writer.finish().ok()) << writer.error();

  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  // The last N events, and one row for the driver's segment alive at the window's start.
  ASSERT_EQ(trace->events.size(), window.last_events + 1);
  EXPECT_EQ(trace->events.source()[0], Source::Driver);
  EXPECT_EQ(trace->events.sizes()[0], 2 << 20);
  EXPECT_EQ(trace->meta.at("complete"), "true");
  EXPECT_GT(std::stoll(trace->meta.at("window.events_discarded")), 0);
  // The last cut is in the file (a reader following it knows whether it lost rows): the rows kept
  // from the recording run from it to the last event written.
  EXPECT_EQ(std::stoull(trace->meta.at("window.first_kept_seq")) + window.last_events,
            std::stoull(trace->meta.at("capture.events_written")));
  // Allocated at the end equals what was really allocated; never below zero on the way.
  const auto series = allocatedSeries(*trace);
  ASSERT_FALSE(series.empty());
  EXPECT_EQ(series.back(), s.allocated());
  for (int64_t a : series) ASSERT_GE(a, 1 << 20);  // the parameter is always there, in the baseline
  // Every category's bytes stay the sum of its own blocks: the baseline's are uncategorised.
  const auto peaks = categoryPeaks(*trace, 0);
  for (int64_t p : peaks.peak) EXPECT_GE(p, 0);
  EXPECT_GE(peaks.peak[static_cast<size_t>(Category::Unknown)], 1 << 20);  // the baseline
  EXPECT_EQ(peaks.peak[static_cast<size_t>(Category::Activation)], 4096);
  CategoryTimeline timeline = buildCategoryTimeline(*trace, 0);
  for (const auto& series_of_category : timeline.live)
    for (int64_t v : series_of_category) ASSERT_GE(v, 0);
}

TEST(CaptureWindow, StepsRecordOnlyTheirStepsFromTheStateAtTheFirst) {
  const std::string path = tempFile("steps.sawtooth");
  auto file = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
  ASSERT_TRUE(file.ok()) << file.error().message;
  RecordQueue queue(1 << 14);
  WindowOptions window;
  window.first_step = 5;
  window.end_step = 8;
  TraceWriter writer(std::move(*file), 0, window);
  writer.addQueue(&queue);
  Stream s(writer, queue);
  s.driverAlloc(0x9000000, 2 << 20);
  s.alloc(Stream::kParam, 1 << 20);
  s.tag(Stream::kParam, Category::Parameter);
  int64_t at_first = 0, at_end = 0;
  for (int64_t n = 0; n < 12; ++n) {
    if (n == 5) at_first = s.allocated();
    if (n == 8) at_end = s.allocated();
    s.trainingStep(n);
    writer.flushOnce(true);
  }
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_NE(trace->device(0), nullptr);
  EXPECT_EQ(trace->device(0)->baseline_allocated, at_first);  // the parameter and step 4's gradient
  const auto series = allocatedSeries(*trace);
  ASSERT_FALSE(series.empty());
  EXPECT_EQ(series.back(), at_end);
  // Three steps of 3 phases each; their ids dense from 0.
  ASSERT_EQ(trace->phases.size(), 9u);
  EXPECT_EQ(trace->phases[0].name, "zero_grad");
  // Step 5 frees step 4's gradient: a block of the baseline, so uncategorised.
  EXPECT_EQ(trace->events.source()[0], Source::Driver);  // the segment alive at step 5
  EXPECT_EQ(trace->events.action()[1], Action::FreeRequested);
  EXPECT_EQ(trace->events.category()[1], Category::Unknown);
  const auto peaks = categoryPeaks(*trace, 0);
  for (int64_t p : peaks.peak) EXPECT_GE(p, 0);
  EXPECT_EQ(peaks.peak[static_cast<size_t>(Category::Gradient)], 1024);  // steps 5-7's own
  EXPECT_EQ(trace->meta.at("window.steps"), "5:8");
  EXPECT_EQ(trace->meta.at("window.steps_run"), "12");
}

// A write that fails (here the file size limit: EFBIG) stops the writer at once; the file keeps
// every batch committed before and says why it is incomplete.
TEST(CaptureWindow, AFailedWriteStopsAndKeepsWhatWasCommitted) {
  const std::string path = tempFile("full.sawtooth");
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {2 << 20, 2 << 20};
    setrlimit(RLIMIT_FSIZE, &limit);
    auto file = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
    if (!file) {
      std::fprintf(stderr, "%s\n", file.error().message.c_str());
      _exit(10);
    }
    RecordQueue queue(1 << 16);
    TraceWriter writer(std::move(*file), 0);
    bool stopped = false;
    writer.onWriteFailure([&] { stopped = true; });
    writer.addQueue(&queue);
    Stream s(writer, queue);
    for (int64_t n = 0; n < 200000 && !stopped; ++n) {
      s.trainingStep(n);
      if (n % 200 == 199) writer.flushOnce(true);
    }
    if (!stopped) _exit(11);
    if (writer.errorNumber() != EFBIG) {
      std::fprintf(stderr, "errno %d: %s\n", writer.errorNumber(), writer.error().c_str());
      _exit(12);
    }
    const Status st = writer.finish();
    _exit(st.ok() ? 13 : 0);  // finish reports the failure
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_GT(trace->events.size(), 10000u);
  EXPECT_EQ(trace->meta.at("complete"), "false");
  EXPECT_EQ(trace->meta.at("incomplete_reason"), "file size limit reached");
  EXPECT_NE(trace->meta.at("incomplete_detail").find("File too large"), std::string::npos)
      << trace->meta.at("incomplete_detail");
}

}  // namespace
}  // namespace sawtooth::capture
