#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <sqlite3.h>

#include "core/analysis/trace_summary.h"
#include "core/io/native_format.h"
#include "core/io/summary_json.h"
#include "core/io/trace_loader.h"
#include "core/util/format_bytes.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

// Everything `info --json` prints except the format line is identical after a round trip.
std::string infoWithoutFormat(const Trace& t) {
  auto j = nlohmann::json::parse(summaryJson(t, summarize(t)));
  j.erase("format");
  j.erase("source_format");
  j["meta"].erase("source_format");
  return j.dump();
}

class RoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(RoundTrip, NativeFileKeepsEverything) {
  auto original = loadTrace(test::dataPath(GetParam()));
  ASSERT_TRUE(original.ok()) << original.error().message;
  const std::string path = test::tempPath(std::string(GetParam()) + ".sawtooth");
  ASSERT_TRUE(writeNative(*original, path).ok());
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  auto copy = loadTrace(path);
  ASSERT_TRUE(copy.ok()) << copy.error().message;
  EXPECT_EQ(copy->format, "sawtooth");
  EXPECT_EQ(copy->meta.at("source_format"), original->format);
  EXPECT_EQ(infoWithoutFormat(*copy), infoWithoutFormat(*original));
  ASSERT_EQ(copy->events.size(), original->events.size());
  for (size_t i = 0; i < copy->events.size(); ++i) {
    const Event a = original->events.at(i), b = copy->events.at(i);
    ASSERT_EQ(a.t_ns, b.t_ns);
    ASSERT_EQ(a.addr, b.addr);
    ASSERT_EQ(a.size, b.size);
    ASSERT_EQ(a.action, b.action);
    ASSERT_EQ(a.stack, b.stack);
    ASSERT_EQ(a.phase, b.phase);
  }
  EXPECT_EQ(copy->stacks.stackCount(), original->stacks.stackCount());
  EXPECT_EQ(copy->stacks.frameCount(), original->stacks.frameCount());
  EXPECT_EQ(copy->phases.size(), original->phases.size());
  EXPECT_EQ(copy->counters.size(), original->counters.size());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RoundTrip,
                         ::testing::Values("anatomy_adam_snapshot.pickle", "oom_mlp_snapshot_protocol2.pickle.gz",
                                           "anatomy_adam_profiler_trace.json.gz"));

TEST(NativeFormat, RunsAndMeasurementsRoundTrip) {
  Trace t;
  t.format = "sawtooth";
  sawtooth::Run run;
  run.name = "bf16";
  run.workload = "precision";
  run.config = {{"mode", "bf16"}, {"batch", "2048"}};
  run.measurements = {{"step_time_ms", 2.5, "ms"}, {"step_time_ms", 2.7, "ms"}, {"peak_allocated", 1e9, "bytes"}};
  t.runs.push_back(run);
  t.phases.push_back(Phase{"forward", PhaseKind::Phase, 0, 0, 10, 20});
  Event e;
  e.run = 0;
  e.phase = 0;
  e.category = Category::Activation;
  t.events.push(e);
  const std::string path = test::tempPath("runs.sawtooth");
  ASSERT_TRUE(writeNative(t, path).ok());
  auto back = readNative(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->runs.size(), 1u);
  EXPECT_EQ(back->runs[0].name, "bf16");
  EXPECT_EQ(back->runs[0].configValue("batch"), "2048");
  EXPECT_EQ(back->runs[0].samples("step_time_ms"), (std::vector<double>{2.5, 2.7}));
  EXPECT_EQ(back->phases[0].device, 0);
  EXPECT_EQ(back->phases[0].run, 0);
  EXPECT_EQ(back->events.category()[0], Category::Activation);
}

TEST(NativeFormat, NewerFormatIsRefusedWithAClearMessage) {
  Trace t;
  const std::string path = test::tempPath("future.sawtooth");
  ASSERT_TRUE(writeNative(t, path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value='7' WHERE key='format_version'", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto back = loadTrace(path);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().message, path + ": written in .sawtooth format 7 by a newer Sawtooth; this build reads up to "
                                         "format " + std::to_string(native::kFormatVersion) +
                                         ". Update Sawtooth to open it.");
}

TEST(NativeFormat, ForeignSqliteIsRefused) {
  const std::string path = test::tempPath("foreign.db");
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto back = loadTrace(path);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("not a Sawtooth trace"), std::string::npos);
}

TEST(NativeFormat, IncrementalBatchesSurviveWithoutFinish) {
  const std::string path = test::tempPath("partial.sawtooth");
  {
    auto writer = NativeWriter::create(path);
    ASSERT_TRUE(writer.ok());
    EventStore events;
    for (int i = 0; i < 100; ++i) {
      Event e;
      e.t_ns = i;
      e.size = 4096;
      events.push(e);
    }
    ASSERT_TRUE((*writer)->beginBatch().ok());
    ASSERT_TRUE((*writer)->appendEvents(events, 0, 60).ok());
    ASSERT_TRUE((*writer)->commitBatch().ok());
    ASSERT_TRUE((*writer)->beginBatch().ok());
    ASSERT_TRUE((*writer)->appendEvents(events, 60, 100).ok());
    // Destroyed with a batch open: the destructor commits what it can.
  }
  auto back = readNative(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->events.size(), 100u);
}

std::vector<std::string> folderListing(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

EventStore someEvents(int n) {
  EventStore events;
  for (int i = 0; i < n; ++i) {
    Event e;
    e.t_ns = i;
    e.addr = 4096 * static_cast<uint64_t>(i + 1);
    e.size = 4096;
    events.push(e);
  }
  return events;
}

// The app's live timeline: a recording still being written is read through its -wal and -shm,
// and reading creates nothing beside it.
TEST(NativeFormat, ReadingARecordingInProgressWritesNothingBesideIt) {
  const std::string folder = test::tempPath("live");
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const std::string path = folder + "/live.sawtooth";
  auto writer = NativeWriter::create(path);
  ASSERT_TRUE(writer.ok());
  const EventStore events = someEvents(50);
  ASSERT_TRUE((*writer)->beginBatch().ok());
  ASSERT_TRUE((*writer)->appendEvents(events, 0, 50).ok());
  ASSERT_TRUE((*writer)->commitBatch().ok());
  const auto before = folderListing(folder);
  EXPECT_EQ(before, (std::vector<std::string>{"live.sawtooth", "live.sawtooth-shm", "live.sawtooth-wal"}));
  auto back = loadTrace(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->events.size(), 50u);
  EXPECT_EQ(folderListing(folder), before);
  ASSERT_TRUE((*writer)->finish().ok());
  writer->reset();
  // Finished: opened immutable, nothing created.
  EXPECT_EQ(folderListing(folder), (std::vector<std::string>{"live.sawtooth"}));
  ASSERT_TRUE(loadTrace(path).ok());
  EXPECT_EQ(folderListing(folder), (std::vector<std::string>{"live.sawtooth"}));
}

// A recording that was not closed, copied without its -wal: what is there is read, and the
// reader says plainly that the rest is in a file that is not here.
TEST(NativeFormat, AMissingWalIsNamed) {
  const std::string folder = test::tempPath("lost-wal");
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const std::string path = folder + "/run.sawtooth";
  auto writer = NativeWriter::create(path);
  ASSERT_TRUE(writer.ok());
  const EventStore events = someEvents(100);
  ASSERT_TRUE((*writer)->beginBatch().ok());
  ASSERT_TRUE((*writer)->appendEvents(events, 0, 60).ok());
  ASSERT_TRUE((*writer)->commitBatch().ok());
  {
    // What a checkpoint does while recording: the first batch reaches the main file.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(FULL)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  ASSERT_TRUE((*writer)->beginBatch().ok());
  ASSERT_TRUE((*writer)->appendEvents(events, 60, 100).ok());
  ASSERT_TRUE((*writer)->commitBatch().ok());
  const std::string copy_folder = test::tempPath("lost-wal-copy");
  std::filesystem::remove_all(copy_folder);
  std::filesystem::create_directories(copy_folder);
  const std::string copy = copy_folder + "/run.sawtooth";
  std::filesystem::copy_file(path, copy);  // the main file alone
  writer->reset();
  auto back = loadTrace(copy);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->events.size(), 60u);
  EXPECT_NE(back->meta["warnings"].find("the last part of it is in run.sawtooth-wal, which is not here"),
            std::string::npos)
      << back->meta["warnings"];
  EXPECT_EQ(folderListing(copy_folder), (std::vector<std::string>{"run.sawtooth"}));
}

std::string fileBytes(const std::string& path) {
  auto bytes = readFileBytes(path);
  return bytes.ok() ? *bytes : std::string("(unreadable)");
}

// A recording killed mid-run: its -wal and -shm stay beside it with no writer holding them. Copies
// made while the writer is alive are such files.
std::string killedRecording(const std::string& name, int events, bool keep_shm) {
  const std::string folder = test::tempPath(name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder + "/live");
  const std::string path = folder + "/live/run.sawtooth";
  auto writer = NativeWriter::create(path);
  EXPECT_TRUE(writer.ok());
  const EventStore all = someEvents(events);
  EXPECT_TRUE((*writer)->beginBatch().ok());
  EXPECT_TRUE((*writer)->appendEvents(all, 0, static_cast<size_t>(events)).ok());
  EXPECT_TRUE((*writer)->commitBatch().ok());
  const std::string copy = folder + "/run.sawtooth";
  for (const char* suffix : {"", "-wal", "-shm"})
    if (keep_shm || std::string_view(suffix) != "-shm") std::filesystem::copy_file(path + suffix, copy + suffix);
  return copy;
}

// SQLite's read-only mode opened the -wal O_RDWR|O_CREAT and, with no writer holding the -shm,
// truncated and rewrote it. Read now, both keep every byte (tests/tools/check_hostile_corpus.py
// checks the system calls under strace).
TEST(NativeFormat, ReadingAKilledRecordingLeavesItsWalAndShmAsTheyWere) {
  for (const bool keep_shm : {true, false}) {
    const std::string path = killedRecording(keep_shm ? "killed" : "killed-no-shm", 300, keep_shm);
    const std::string folder = std::filesystem::path(path).parent_path().string();
    const auto listing = folderListing(folder);
    const std::string wal = fileBytes(path + "-wal"), shm = keep_shm ? fileBytes(path + "-shm") : "";
    const auto wal_time = std::filesystem::last_write_time(path + "-wal");
    ASSERT_GT(wal.size(), 4096u);
    auto back = loadTrace(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->events.size(), 300u);  // every committed batch, from the -wal
    EXPECT_EQ(folderListing(folder), listing);
    EXPECT_EQ(fileBytes(path + "-wal"), wal);
    EXPECT_EQ(std::filesystem::last_write_time(path + "-wal"), wal_time);
    if (keep_shm) {
      EXPECT_EQ(fileBytes(path + "-shm"), shm);
    }
  }
}

// A -wal is read whole when no writer keeps its index: past the journal limit it is refused
// before anything is read (a 4 GB sparse -wal was copied for 29 s).
TEST(NativeFormat, AWalPastTheJournalLimitIsRefused) {
  const std::string path = killedRecording("killed-large", 300, false);
  ReadLimits small;
  small.max_journal = 1024;
  auto back = loadTrace(path, nullptr, small);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("its -wal file holds"), std::string::npos) << back.error().message;
  EXPECT_NE(back.error().message.find("more than the journal limit of 1.0 kB (raise it with --limit journal=N)"),
            std::string::npos)
      << back.error().message;
  EXPECT_TRUE(loadTrace(path).ok());
}

// A file copied in the middle of a write transaction has a -journal beside it: rolling it back
// means writing, so the database and the journal are copied into a private folder first, within
// the journal limit (a 4 GB sparse -journal was copied whole).
TEST(NativeFormat, AJournalToRollBackPastTheJournalLimitIsRefused) {
  auto original = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(original.ok()) << original.error().message;
  const std::string folder = test::tempPath("hot-journal");
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder + "/copy");
  const std::string path = folder + "/run.sawtooth", copy = folder + "/copy/run.sawtooth";
  ASSERT_TRUE(writeNative(*original, path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN; DELETE FROM events", nullptr, nullptr, nullptr), SQLITE_OK);
  std::filesystem::copy_file(path, copy);
  std::filesystem::copy_file(path + "-journal", copy + "-journal");  // the transaction is still open
  ASSERT_EQ(sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const uint64_t bytes = std::filesystem::file_size(copy) + std::filesystem::file_size(copy + "-journal");
  ASSERT_GT(std::filesystem::file_size(copy + "-journal"), 4096u);

  ReadLimits small;
  ASSERT_TRUE(setLimit(small, fmt::format("journal={}", bytes - 1)).ok());
  auto refused = loadTrace(copy, nullptr, small);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(fmt::format("rolling back its -journal means copying it with the database, "
                                                     "{} ({} bytes), more than the journal limit of",
                                                     formatBytes(static_cast<int64_t>(bytes)), bytes)),
            std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("(raise it with --limit journal=N)"), std::string::npos);
  ASSERT_TRUE(setLimit(small, fmt::format("journal={}", bytes)).ok());
  auto back = loadTrace(copy, nullptr, small);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->events.size(), original->events.size());
  EXPECT_EQ(folderListing(folder + "/copy"), (std::vector<std::string>{"run.sawtooth", "run.sawtooth-journal"}));
}

TEST(NativeFormat, SqliteCanQueryNamedEvents) {
  auto original = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(original.ok());
  const std::string path = test::tempPath("named.sawtooth");
  ASSERT_TRUE(writeNative(*original, path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM events_named WHERE action='alloc'", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(st, 0), 129);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

}  // namespace
}  // namespace sawtooth
