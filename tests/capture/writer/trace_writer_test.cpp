// The writer thread's contract, without LibTorch: records in, a readable .sawtooth out, with
// phases, runs and categories attributed, batch by batch.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "core/analysis/category_series.h"
#include "capture/writer/trace_writer.h"
#include "core/io/native_format.h"
#include "core/io/native_open.h"
#include "core/io/native_summaries.h"

namespace sawtooth::capture {
namespace {

std::string tempFile(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / "sawtooth-writer-tests";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

CaptureRecord memory(int64_t t, Action a, uint64_t addr, int64_t size, Source s = Source::Allocator) {
  CaptureRecord r;
  r.t_ns = t;
  r.kind = RecordKind::Memory;
  r.action = a;
  r.addr = addr;
  r.size = size;
  r.source = s;
  return r;
}

CaptureRecord marker(int64_t t, RecordKind kind, uint32_t id = 0) {
  CaptureRecord r;
  r.t_ns = t;
  r.kind = kind;
  r.id = id;
  return r;
}

CaptureRecord tagRecord(int64_t t, uint64_t addr, Category c) {
  CaptureRecord r = marker(t, RecordKind::Tag);
  r.addr = addr;
  r.category = c;
  return r;
}

TEST(TraceWriter, AttributesPhasesRunsAndCategoriesAcrossBatches) {
  const std::string path = tempFile("writer.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue live(1024), late(1024);
  TraceWriter writer(std::move(*file), /*t0*/ 1000);
  writer.addQueue(&live);
  writer.addQueue(&late);
  writer.defineRun(0, sawtooth::Run{"adam", "anatomy", {{"width", "8"}}, {}});
  writer.definePhase(0, "forward", 0);
  writer.definePhase(1, "backward", 0);

  live.tryPush(marker(1000, RecordKind::RunBegin, 0));
  live.tryPush(memory(1001, Action::Alloc, 0xA000, 400));  // a parameter, tagged below
  live.tryPush(tagRecord(1002, 0xA000, Category::Parameter));
  live.tryPush(marker(1010, RecordKind::PhaseBegin, 0));
  live.tryPush(memory(1011, Action::Alloc, 0xB000, 64));   // activation: alive at backward
  live.tryPush(memory(1012, Action::Alloc, 0xC000, 32));   // temporary: dies in forward
  live.tryPush(memory(1013, Action::FreeCompleted, 0xC000, 32));
  live.tryPush(marker(1020, RecordKind::PhaseEnd, 0));
  writer.flushOnce(true);  // first batch: the activation's alloc row is already in the file
  live.tryPush(marker(1021, RecordKind::PhaseBegin, 1));
  live.tryPush(memory(1022, Action::FreeCompleted, 0xB000, 64));
  late.tryPush(memory(1015, Action::Alloc, 0xD000, 1 << 20, Source::Driver));  // CUPTI, late
  live.tryPush(marker(1030, RecordKind::PhaseEnd, 1));
  live.tryPush(marker(1031, RecordKind::RunEnd, 0));
  writer.defineRun(0, sawtooth::Run{"adam", "anatomy", {{"width", "8"}}, {{"peak_allocated_bytes", 496, "bytes"}}});
  ASSERT_TRUE(writer.finish().ok()) << writer.error();

  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const auto& ev = trace->events;
  ASSERT_EQ(ev.size(), 6u);
  ASSERT_EQ(trace->phases.size(), 2u);
  EXPECT_EQ(trace->phases[0].name, "forward");
  EXPECT_EQ(trace->phases[0].begin_ns, 10);
  EXPECT_EQ(trace->phases[0].end_ns, 20);
  EXPECT_EQ(trace->phases[1].run, 0);
  ASSERT_EQ(trace->runs.size(), 1u);
  EXPECT_EQ(trace->runs[0].measurement("peak_allocated_bytes")->value, 496);
  EXPECT_EQ(ev.category()[0], Category::Parameter);
  EXPECT_EQ(ev.run()[0], 0);
  EXPECT_EQ(ev.category()[1], Category::Activation);  // updated in the file after the fact
  EXPECT_EQ(ev.phase()[1], 0u);
  EXPECT_EQ(ev.category()[2], Category::Temporary);
  EXPECT_EQ(ev.category()[3], Category::Temporary);
  EXPECT_EQ(ev.category()[5], Category::Activation);  // the activation's free
  // The late driver record is placed in the phase that covered its time.
  EXPECT_EQ(ev.source()[4], Source::Driver);
  EXPECT_EQ(ev.phase()[4], 0u);
  const auto peaks = categoryPeaks(*trace, 0);
  EXPECT_EQ(peaks.peak[static_cast<size_t>(Category::Parameter)], 400);
  EXPECT_EQ(peaks.peak[static_cast<size_t>(Category::Activation)], 64);
}

// A program's records share a few stacks: each distinct one is symbolized once, and one that its
// sender also holds keeps its stack id in later batches; a context made for one event (C++
// stacks) is symbolized with its batch and not kept.
TEST(TraceWriter, SymbolizesEachDistinctStackOnce) {
  const std::string path = tempFile("stacks.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue q(4096);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&q);
  std::atomic<int> contexts_symbolized{0};
  writer.setSymbolizer([&](const std::vector<std::shared_ptr<void>>& contexts) {
    contexts_symbolized += static_cast<int>(contexts.size());
    std::vector<std::vector<Frame>> out;
    for (const auto& c : contexts) {
      const int n = *static_cast<const int*>(c.get());
      out.push_back({Frame{"f" + std::to_string(n), "train.py", n}, Frame{"main", "train.py", 1}});
    }
    return out;
  });
  // Held by the "connection", as the program recorder's stack table holds them.
  std::vector<std::shared_ptr<void>> shared_stacks;
  for (int n = 0; n < 3; ++n) shared_stacks.push_back(std::make_shared<int>(10 + n));
  int64_t t = 1;
  for (int batch = 0; batch < 3; ++batch) {
    for (int k = 0; k < 300; ++k) {
      CaptureRecord r = memory(t++, Action::Alloc, 0x1000 + static_cast<uint64_t>(t), 16);
      r.context = shared_stacks[static_cast<size_t>(k % 3)];
      ASSERT_TRUE(q.tryPush(std::move(r)));
    }
    CaptureRecord own = memory(t++, Action::Alloc, 0x900000 + static_cast<uint64_t>(t), 16);
    own.context = std::make_shared<int>(99);  // this event's alone
    ASSERT_TRUE(q.tryPush(std::move(own)));
    writer.flushOnce(true);
  }
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  // 3 shared stacks once, plus each batch's own context.
  EXPECT_EQ(contexts_symbolized.load(), 3 + 3);
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->events.size(), 903u);
  EXPECT_EQ(trace->stacks.stackCount(), 4u);
  for (size_t i = 0; i < trace->events.size(); ++i) {
    const auto frames = trace->stacks.stack(trace->events.stack()[i]);
    ASSERT_EQ(frames.size(), 2u) << i;
    const int expected = i % 301 == 300 ? 99 : 10 + static_cast<int>((i % 301) % 3);
    EXPECT_EQ(trace->stacks.frame(frames[0]).line, expected) << i;
  }
}

TEST(TraceWriter, HoldsBackTheNewestRecordsUntilTheNextBatch) {
  const std::string path = tempFile("holdback.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue q(64);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&q);
  q.tryPush(memory(clockNs() + 60'000'000'000, Action::Alloc, 1, 8));  // "in the future"
  writer.flushOnce(false);
  EXPECT_EQ(writer.stats().events, 0u);
  ASSERT_TRUE(writer.finish().ok());
  EXPECT_EQ(writer.stats().events, 1u);
}

TEST(TraceWriter, AQueueThatIsFullRefusesWithoutBlocking) {
  RecordQueue q(4);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(q.tryPush(CaptureRecord{}));
  EXPECT_FALSE(q.tryPush(CaptureRecord{}));
  CaptureRecord r;
  EXPECT_TRUE(q.tryPop(r));
  EXPECT_TRUE(q.tryPush(CaptureRecord{}));
  EXPECT_EQ(q.bytes(), 4 * (sizeof(CaptureRecord) + sizeof(size_t)));
}

// The allocator tracker moves each entry's stack context into the queue (one reference-count
// change on the program's thread instead of three): a refused push must leave it with the caller.
TEST(TraceWriter, AMovedRecordStaysWithTheCallerWhenTheQueueIsFull) {
  RecordQueue q(2);
  auto context = std::make_shared<int>(7);
  for (int i = 0; i < 2; ++i) {
    CaptureRecord r;
    r.context = context;
    ASSERT_TRUE(q.tryPush(std::move(r)));
    EXPECT_EQ(r.context, nullptr) << "moved in";
  }
  EXPECT_EQ(context.use_count(), 3);
  CaptureRecord refused;
  refused.context = context;
  EXPECT_FALSE(q.tryPush(std::move(refused)));
  EXPECT_EQ(refused.context, context) << "still the caller's";
  CaptureRecord out;
  ASSERT_TRUE(q.tryPop(out));
  EXPECT_EQ(out.context, context);
}

TEST(QueuePolicy, AFullQueueWaitsOnceThenDropsAndCountsExactly) {
  RecordQueue q(8);
  QueueCounters counters;
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(pushOrDrop(q, CaptureRecord{}, nullptr, counters));
  // Nobody drains: the first record waits kFullQueueWait and is dropped, the next ones at once.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(pushOrDrop(q, CaptureRecord{}, nullptr, counters));
  EXPECT_GE(std::chrono::steady_clock::now() - start, kFullQueueWait);
  EXPECT_EQ(counters.pushed.load(), 8u);
  EXPECT_EQ(counters.dropped.load(), 100u);
  EXPECT_EQ(counters.waited.load(), 1u);  // one wait, not one per record
  EXPECT_GE(counters.waited_ns.load(), static_cast<uint64_t>(std::chrono::nanoseconds(kFullQueueWait).count()));
  // Room again: the push goes in, and the next full queue waits again.
  CaptureRecord r;
  EXPECT_TRUE(q.tryPop(r));
  EXPECT_TRUE(pushOrDrop(q, CaptureRecord{}, nullptr, counters));
  EXPECT_FALSE(counters.overflowing.load());
  EXPECT_FALSE(pushOrDrop(q, CaptureRecord{}, nullptr, counters));
  EXPECT_EQ(counters.waited.load(), 2u);
  EXPECT_EQ(counters.pushed.load() + counters.dropped.load(), 110u);
}

TEST(QueuePolicy, AFullQueueWakesTheWriter) {
  RecordQueue q(4);
  QueueCounters counters;
  WriterWakeup wakeup;
  bool woken_early = false;
  std::thread writer([&] {
    woken_early = wakeup.sleep(std::chrono::milliseconds(60'000), [] { return false; });
    CaptureRecord r;
    while (q.tryPop(r)) {
    }
  });
  for (int i = 0; i < 5; ++i) pushOrDrop(q, CaptureRecord{}, &wakeup, counters);
  writer.join();  // returns long before its minute: the fifth push woke it
  EXPECT_TRUE(woken_early);
  EXPECT_EQ(counters.pushed.load() + counters.dropped.load(), 5u);
  EXPECT_EQ(counters.waited.load(), 1u);
}

TEST(TraceWriter, KernelsArriveLateAndTakeTheRunOfTheirTime) {
  const std::string path = tempFile("kernels.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue q(1024);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&q);
  writer.defineRun(0, sawtooth::Run{"fp32", "precision", {}, {}});
  writer.defineRun(1, sawtooth::Run{"bf16", "precision", {}, {}});
  writer.definePhase(0, "forward", 0);
  writer.definePhase(1, "forward", 1);
  q.tryPush(marker(100, RecordKind::RunBegin, 0));
  q.tryPush(marker(110, RecordKind::PhaseBegin, 0));
  q.tryPush(marker(150, RecordKind::PhaseEnd, 0));
  q.tryPush(marker(160, RecordKind::RunEnd, 0));
  q.tryPush(marker(200, RecordKind::RunBegin, 1));
  q.tryPush(marker(210, RecordKind::PhaseBegin, 1));
  q.tryPush(marker(250, RecordKind::PhaseEnd, 1));
  writer.flushOnce(true);
  // CUPTI hands the first run's kernels over only now, with the name of each new kernel once.
  KernelInterval k;
  k.begin_ns = 120;
  k.end_ns = 130;
  k.name = 0;
  writer.addKernels({k}, {{0, "gemm"}});
  k.begin_ns = 220;
  k.end_ns = 230;
  writer.addKernels({k}, {});
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->kernels.size(), 2u);
  ASSERT_EQ(trace->kernel_names.size(), 1u);
  EXPECT_EQ(trace->kernel_names[0], "gemm");
  EXPECT_EQ(trace->kernels[0].run, 0);
  EXPECT_EQ(trace->kernels[1].run, 1);
}

// The summaries a file holds against the ones its events give (io/native_summaries.h).
native::SummaryCheck checkFile(const std::string& path, std::string* quick) {
  auto source = native::planOpen(path);
  EXPECT_TRUE(source.ok());
  ReadBudget budget{ReadLimits{}};
  auto db = native::openSource(*source, native::makeGuard(budget, nullptr), ReadLimits{});
  EXPECT_TRUE(db.ok()) << (db.ok() ? "" : db.error().message);
  auto q = native::quickSummaryCheck(*db, *db);
  EXPECT_TRUE(q.ok());
  *quick = q.ok() ? *q : "";
  auto check = native::checkSummaries(*db, *db, {}, nullptr);
  EXPECT_TRUE(check.ok()) << (check.ok() ? "" : check.error().message);
  return check.ok() ? *check : native::SummaryCheck{};
}

// A training loop through the writer, batch by batch: parameters tagged after their alloc,
// activations marked when backward begins, temporaries decided at their free, driver records late.
// With `split`, each batch ends after a forward phase: its blocks learn their category in the next.
void pushSteps(RecordQueue& live, RecordQueue& late, TraceWriter& writer, int64_t& t, int first_step, int steps,
               bool split = false) {
  for (int step = first_step; step < first_step + steps; ++step) {
    const uint32_t forward = static_cast<uint32_t>(step) * 2, backward = forward + 1;
    writer.definePhase(forward, "forward", 0);
    writer.definePhase(backward, "backward", 0);
    if (step == 0) {
      for (uint64_t p = 0; p < 8; ++p) live.tryPush(memory(t++, Action::Alloc, 0x100000 + p * 0x1000, 4096));
      for (uint64_t p = 0; p < 8; ++p) live.tryPush(tagRecord(t++, 0x100000 + p * 0x1000, Category::Parameter));
    }
    live.tryPush(marker(t++, RecordKind::PhaseBegin, forward));
    for (uint64_t a = 0; a < 40; ++a) {
      live.tryPush(memory(t++, Action::Alloc, 0x200000 + a * 0x1000, 512 + static_cast<int64_t>(a)));
      if (a % 4 == 3) live.tryPush(memory(t++, Action::FreeCompleted, 0x200000 + a * 0x1000, 512 + static_cast<int64_t>(a)));
    }
    live.tryPush(marker(t++, RecordKind::PhaseEnd, forward));
    if (split) writer.flushOnce(true);
    live.tryPush(marker(t++, RecordKind::PhaseBegin, backward));
    for (uint64_t a = 0; a < 40; ++a)
      if (a % 4 != 3) live.tryPush(memory(t++, Action::FreeCompleted, 0x200000 + a * 0x1000, 512 + static_cast<int64_t>(a)));
    live.tryPush(marker(t++, RecordKind::PhaseEnd, backward));
    CaptureRecord sample = marker(t++, RecordKind::Sample);
    sample.size = 1 << 20;
    live.tryPush(sample);
    late.tryPush(memory(t - 30, step % 2 ? Action::FreeCompleted : Action::Alloc, 0x900000, 1 << 21, Source::Driver));
  }
}

TEST(TraceWriter, TheSummariesAreTheOnesItsEventsGive) {
  const std::string path = tempFile("summaries.sawtooth");
  auto file = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
  ASSERT_TRUE(file.ok());
  RecordQueue live(1 << 16), late(1 << 16);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&live);
  writer.addQueue(&late);
  writer.defineRun(0, sawtooth::Run{"r", "anatomy", {}, {}});
  int64_t t = 1000;
  live.tryPush(marker(t++, RecordKind::RunBegin, 0));
  // Batches that end after a forward phase: blocks born in one batch learn their category in the next.
  for (int batch = 0; batch < 40; ++batch) {
    pushSteps(live, late, writer, t, batch * 5, 5, batch % 2 == 1);
    writer.flushOnce(true);
  }
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  EXPECT_GT(writer.stats().category_updates, 100u);
  std::string quick;
  const native::SummaryCheck check = checkFile(path, &quick);
  EXPECT_EQ(quick, "");
  EXPECT_TRUE(check.agree()) << check.differences << " differences, first: "
                             << (check.first_differences.empty() ? "" : check.first_differences[0]);
  EXPECT_GT(check.events, 10000u);
}

// The H200's anatomy recording (bench/results/h200-2026-12-02-writer-regression.md): cuBLAS's
// workspace, made in the first forward, lives to the end; every backward marked it as an
// activation and undid that at its end, so its allocation's row — in the file since the first
// batch — changed category twice a step, and each change moved the file's summaries from that row
// to the end: work per step that grew with the recording. Only rows whose block's category ends
// up changed are rewritten in the file now.
TEST(TraceWriter, AWorkspaceThatOutlivesEveryBackwardIsNotRewrittenEveryStep) {
  const std::string path = tempFile("workspace.sawtooth");
  auto file = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
  ASSERT_TRUE(file.ok());
  RecordQueue q(1 << 12);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&q);
  writer.defineRun(0, sawtooth::Run{"r", "anatomy", {}, {}});
  int64_t t = 1000;
  q.tryPush(marker(t++, RecordKind::RunBegin, 0));
  constexpr int kSteps = 200;
  for (int step = 0; step < kSteps; ++step) {
    const uint32_t forward = static_cast<uint32_t>(step) * 2, backward = forward + 1;
    writer.definePhase(forward, "forward", 0);
    writer.definePhase(backward, "backward", 0);
    q.tryPush(marker(t++, RecordKind::PhaseBegin, forward));
    if (step == 0) q.tryPush(memory(t++, Action::Alloc, 0x100000, 4 << 20));  // the workspace
    q.tryPush(memory(t++, Action::Alloc, 0x800000, 4096));                    // an activation
    q.tryPush(marker(t++, RecordKind::PhaseEnd, forward));
    q.tryPush(marker(t++, RecordKind::PhaseBegin, backward));
    q.tryPush(memory(t++, Action::FreeRequested, 0x800000, 4096));
    q.tryPush(memory(t++, Action::FreeCompleted, 0x800000, 4096));
    q.tryPush(marker(t++, RecordKind::PhaseEnd, backward));
    writer.flushOnce(true);  // a batch a step: each step's own rows learn their category in the buffer
  }
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  // Category changes that reached rows already in the file: none (it was two a step).
  EXPECT_EQ(writer.stats().category_updates, 0u);

  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const auto& ev = trace->events;
  ASSERT_EQ(ev.size(), 1u + 3u * kSteps);
  EXPECT_EQ(ev.addr()[0], 0x100000u);
  EXPECT_EQ(ev.category()[0], Category::Unknown);  // outlived every backward: not an activation
  for (size_t i = 1; i < ev.size(); ++i) EXPECT_EQ(ev.category()[i], Category::Activation) << i;
  std::string quick;
  const native::SummaryCheck check = checkFile(path, &quick);
  EXPECT_EQ(quick, "");
  EXPECT_TRUE(check.agree()) << check.differences << " differences, first: "
                             << (check.first_differences.empty() ? "" : check.first_differences[0]);
}

TEST(TraceWriter, AKilledRecordingsSummariesCoverWhatWasCommitted) {
  const std::string path = tempFile("killed.sawtooth"), copy = tempFile("killed-copy.sawtooth");
  auto file = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
  ASSERT_TRUE(file.ok());
  RecordQueue live(1 << 16), late(1 << 16);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&live);
  writer.addQueue(&late);
  writer.defineRun(0, sawtooth::Run{"r", "anatomy", {}, {}});
  int64_t t = 1000;
  live.tryPush(marker(t++, RecordKind::RunBegin, 0));
  for (int batch = 0; batch < 12; ++batch) {
    pushSteps(live, late, writer, t, batch * 5, 5, true);
    writer.flushOnce(true);
  }
  // What a killed recorder leaves: the file and its -wal as they are between two batches.
  for (const char* suffix : {"", "-wal"}) {
    std::filesystem::remove(copy + suffix);
    std::filesystem::copy_file(path + suffix, copy + suffix);
  }
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  std::string quick;
  const native::SummaryCheck check = checkFile(copy, &quick);
  EXPECT_EQ(quick, "");
  EXPECT_GT(check.events, 1000u);
  // Open phases, steps and waiting driver records are as the recorder left them between batches;
  // a rebuild from the events ends them. The pyramids and the index are the same.
  for (const std::string& d : check.first_differences)
    EXPECT_TRUE(d.find("step") != std::string::npos || d.find("phase") != std::string::npos ||
                d.find("axis 1") != std::string::npos || d.find("axis 2") != std::string::npos ||
                d.find("series 2") != std::string::npos || d.find("series 3") != std::string::npos ||
                d.find("rows where") != std::string::npos)
        << d;
}

}  // namespace
}  // namespace sawtooth::capture
