// The events table read by several connections at once: the same trace as one reader, and every
// way the sequence numbers can fail to be dense is still an error naming the file.

#include <gtest/gtest.h>

#include <atomic>

#include <sqlite3.h>

#include "core/io/native_event_reader.h"
#include "core/io/native_format.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

Trace makeTrace(size_t events) {
  Trace t;
  t.format = "sawtooth";
  t.phases.push_back(Phase{"forward", PhaseKind::Phase, kAllDevices, kNoRun, 0, 1000});
  const uint32_t frame = t.stacks.internFrame("f", "f.py", 1);
  const uint32_t stack = t.stacks.internStack(std::span<const uint32_t>(&frame, 1));
  for (size_t i = 0; i < events; ++i) {
    Event e;
    e.t_ns = static_cast<int64_t>(i) * 7;
    e.device = static_cast<DeviceId>(i % 3);
    e.action = static_cast<Action>(i % kActionCount);
    e.source = static_cast<Source>(i % kSourceCount);
    e.category = static_cast<Category>(i % kCategoryCount);
    e.addr = 0x7f0000000000 + i * 512;
    e.size = static_cast<int64_t>(i % 97) << 20;
    e.stream = i % 2;
    e.phase = i % 5 == 0 ? kNoPhase : 0;
    e.stack = i % 4 == 0 ? kNoStack : stack;
    e.run = kNoRun;
    t.events.push(e);
  }
  return t;
}

void execSql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

EventReadOptions manyThreads() { return EventReadOptions{.threads = 4, .min_rows_per_thread = 1}; }

TEST(NativeEventReader, FourThreadsReadWhatOneWrote) {
  const Trace original = makeTrace(1001);
  const std::string path = test::tempPath("threads.sawtooth");
  ASSERT_TRUE(writeNative(original, path).ok());
  auto copy = readNative(path, nullptr, manyThreads());
  ASSERT_TRUE(copy.ok()) << copy.error().message;
  ASSERT_EQ(copy->events.size(), original.events.size());
  for (size_t i = 0; i < original.events.size(); ++i) {
    const Event a = original.events.at(i), b = copy->events.at(i);
    ASSERT_EQ(a.t_ns, b.t_ns) << i;
    ASSERT_EQ(a.device, b.device) << i;
    ASSERT_EQ(a.source, b.source) << i;
    ASSERT_EQ(a.action, b.action) << i;
    ASSERT_EQ(a.addr, b.addr) << i;
    ASSERT_EQ(a.size, b.size) << i;
    ASSERT_EQ(a.stream, b.stream) << i;
    ASSERT_EQ(a.category, b.category) << i;
    ASSERT_EQ(a.phase, b.phase) << i;
    ASSERT_EQ(a.stack, b.stack) << i;
    ASSERT_EQ(a.run, b.run) << i;
  }
  EXPECT_EQ(copy->events.bytesResident(), copy->events.size() * 49);
}

TEST(NativeEventReader, ProgressReachesTheEndAndCancelStops) {
  const std::string path = test::tempPath("progress.sawtooth");
  ASSERT_TRUE(writeNative(makeTrace(300000), path).ok());
  int last = -1;
  std::atomic<bool> cancel{false};
  Progress progress([&](int permille) { last = permille; }, &cancel);
  ASSERT_TRUE(readNative(path, &progress, manyThreads()).ok());
  EXPECT_GT(last, 0);

  cancel = true;
  Progress cancelled([](int) {}, &cancel);
  auto none = readNative(path, &cancelled, manyThreads());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "cancelled");
}

TEST(NativeEventReader, AMissingSeqIsAnError) {
  const std::string path = test::tempPath("gap.sawtooth");
  ASSERT_TRUE(writeNative(makeTrace(100), path).ok());
  execSql(path, "DELETE FROM events WHERE seq = 50");
  for (unsigned threads : {1u, 4u}) {
    auto trace = readNative(path, nullptr, EventReadOptions{.threads = threads, .min_rows_per_thread = 1});
    ASSERT_FALSE(trace.ok());
    EXPECT_EQ(trace.error().message, path + ": event sequence numbers are not dense (99 events, the last seq 99)");
  }
}

TEST(NativeEventReader, ANegativeSeqHidingAGapIsAnError) {
  // 100 rows whose largest seq is 99, yet 42 is missing: only the range that should hold 42 sees it.
  const std::string path = test::tempPath("negative.sawtooth");
  ASSERT_TRUE(writeNative(makeTrace(100), path).ok());
  execSql(path, "UPDATE events SET seq = -1 WHERE seq = 42");
  auto trace = readNative(path, nullptr, manyThreads());
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find(path + ": event sequence numbers are not dense (24 events with seq in [25, 50))"),
            std::string::npos)
      << trace.error().message;
}

TEST(NativeEventReader, AnUnknownActionCodeNamesTheEvent) {
  const std::string path = test::tempPath("badcode.sawtooth");
  ASSERT_TRUE(writeNative(makeTrace(100), path).ok());
  execSql(path, "UPDATE events SET action = 99 WHERE seq = 77");
  auto trace = readNative(path, nullptr, manyThreads());
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().message, path + ": event 77 has an unknown source, action or category code");
}

TEST(NativeEventReader, OutOfRangeIdsBecomeNone) {
  const std::string path = test::tempPath("ids.sawtooth");
  ASSERT_TRUE(writeNative(makeTrace(10), path).ok());
  execSql(path, "UPDATE events SET phase = 5, stack = -3, run = 70000 WHERE seq = 1");
  auto trace = readNative(path, nullptr, manyThreads());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace->events.phase()[1], kNoPhase);
  EXPECT_EQ(trace->events.stack()[1], kNoStack);
  EXPECT_EQ(trace->events.run()[1], kNoRun);
}

}  // namespace
}  // namespace sawtooth
