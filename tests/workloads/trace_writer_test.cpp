// The writer thread's contract, without LibTorch: records in, a readable .sawtooth out, with
// phases, runs and categories attributed, batch by batch.

#include <gtest/gtest.h>

#include <filesystem>

#include "core/analysis/category_series.h"
#include "workloads/capture/trace_writer.h"
#include "core/io/native_format.h"

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
  writer.addQueue(&live, true);
  writer.addQueue(&late, false);
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

TEST(TraceWriter, HoldsBackTheNewestRecordsUntilTheNextBatch) {
  const std::string path = tempFile("holdback.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue q(64);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&q, true);
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
}

}  // namespace
}  // namespace sawtooth::capture
