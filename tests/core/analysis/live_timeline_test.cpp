// A recording followed while it is written: the live tail reads each committed batch once, and
// the live timeline built from those pieces is the finished trace's own series, point for point.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/analysis/live_sources.h"
#include "core/analysis/live_timeline.h"
#include "core/analysis/trace_analysis.h"
#include "core/io/live_tail.h"
#include "core/io/native_writer.h"
#include "core/io/trace_loader.h"
#include "core/io/sqlite_db.h"
#include "tests/core/analysis_test_data.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

namespace fs = std::filesystem;

void removeFile(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix);
}

// A finished recording with no events, open for a test to write into as a hostile file would.
Result<sql::Database> emptyRecordingToEdit(const std::string& path) {
  {
    auto writer = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
    if (!writer) return writer.error();
    if (Status st = (*writer)->finish(); !st) return st.error();
  }  // the writer closed before the test opens the file
  return sql::Database::open(path, sql::Database::Mode::Create);
}

// Polls until the tail has nothing more, appending what it reads.
size_t drain(LiveTail& tail, LiveTimeline& live, bool* complete = nullptr) {
  size_t rows = 0;
  for (;;) {
    auto batch = tail.poll();
    EXPECT_TRUE(batch.ok()) << batch.error().message;
    if (!batch.ok()) return rows;
    live.setDevices(batch->devices);
    live.append(batch->rows);
    rows += batch->rows.size();
    if (complete) *complete = batch->complete;
    if (!batch->more) return rows;
  }
}

TEST(LiveTail, FollowsARecordingBatchByBatchAndMatchesTheFinishedSeries) {
  auto trace = loadTrace(test::samplePath("anatomy.sawtooth"));
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const std::string path = test::tempPath("live_follow.sawtooth");
  removeFile(path);

  LiveTail tail(path, /*max_rows=*/700);
  LiveTimeline live;
  auto nothing = tail.poll();  // before the recorder made the file
  ASSERT_TRUE(nothing.ok());
  EXPECT_FALSE(nothing->ready);

  auto writer = NativeWriter::create(path, OutputClaim::Existing::Replace, NativeWriterOptions{.recording = true});
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  auto empty = tail.poll();
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_TRUE(empty->rows.empty());
  EXPECT_FALSE(empty->complete);

  ASSERT_TRUE((*writer)->beginBatch());
  for (const DeviceInfo& d : trace->devices) ASSERT_TRUE((*writer)->writeDevice(d));
  ASSERT_TRUE((*writer)->commitBatch());

  const size_t n = trace->events.size(), batch = 1000;
  size_t seen = 0;
  for (size_t b = 0; b < n; b += batch) {
    ASSERT_TRUE((*writer)->beginBatch());
    ASSERT_TRUE((*writer)->appendEventsAt(trace->events, b, std::min(n, b + batch), b));
    // Rows of a batch not yet committed are not read.
    EXPECT_EQ(drain(tail, live), 0u);
    ASSERT_TRUE((*writer)->commitBatch());
    bool complete = true;
    seen += drain(tail, live, &complete);
    EXPECT_EQ(seen, std::min(n, b + batch));
    EXPECT_FALSE(complete);
  }
  // Reading created nothing beside the file but the writer's own -wal and -shm.
  EXPECT_FALSE(fs::exists(path + "-journal"));

  ASSERT_TRUE((*writer)->finish());
  writer->reset();
  bool complete = false;
  EXPECT_EQ(drain(tail, live, &complete), 0u);
  EXPECT_TRUE(complete);
  EXPECT_EQ(live.events(), n);
  EXPECT_EQ(tail.eventsRead(), n);

  const TraceAnalysis analysis(std::make_shared<const Trace>(std::move(*trace)));
  ASSERT_EQ(live.devices().size(), analysis.devices().size());
  for (const auto& d : analysis.devices()) {
    const LiveTimeline::Device* l = live.device(d->device);
    ASSERT_NE(l, nullptr);
    const DeviceSeries& s = d->series;
    EXPECT_EQ(l->allocator_t, s.allocator->t_ns);
    EXPECT_EQ(l->allocated.start, s.allocated.start);
    EXPECT_EQ(l->allocated.value, s.allocated.value);
    EXPECT_EQ(l->reserved.value, s.reserved.value);
    EXPECT_EQ(l->allocated.peak, d->line(SeriesKind::Allocated)->peak.value);
    ASSERT_EQ(l->device_used.value.size(), s.device_used ? s.device_used->size() : 0u);
    EXPECT_EQ(live.maxValue() >= l->reserved.peak, true);
    // What is drawn: the live pyramid's columns are the finished analysis' columns.
    const double t0 = static_cast<double>(s.allocator->t_ns.front()), t1 = static_cast<double>(s.allocator->t_ns.back());
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved}) {
      const SeriesAnalysis* line = d->line(kind);
      const auto want = line->lod.query(s.allocator->t_ns, line->series->start, t0, t1, 333);
      const auto got = live.query(*l, kind, t0, t1, 333);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].y, want[i].y) << i;
    }
  }
  EXPECT_GT(live.bytesResident(), 0u);
  removeFile(path);
}

TEST(LiveTail, AFileThatIsNotATraceYetIsWaitedFor) {
  const std::string path = test::tempPath("live_not_yet.sawtooth");
  removeFile(path);
  std::ofstream(path).close();  // claimed, empty
  LiveTail tail(path);
  auto batch = tail.poll();
  ASSERT_TRUE(batch.ok());
  EXPECT_FALSE(batch->ready);
  removeFile(path);
}

TEST(LiveTail, RefusesRowsThatAreNotWhatSawtoothWrites) {
  const std::string path = test::tempPath("live_hostile.sawtooth");
  removeFile(path);
  auto db = emptyRecordingToEdit(path);
  ASSERT_TRUE(db.ok()) << db.error().message;
  ASSERT_TRUE(db->exec("INSERT INTO events(seq, t_ns, device, source, action, size) VALUES(0, 1, 'gpu', 0, 0, 16)"));
  LiveTail tail(path);
  auto text_device = tail.poll();
  ASSERT_FALSE(text_device.ok());
  EXPECT_NE(text_device.error().message.find("'device' is not an integer"), std::string::npos) << text_device.error().message;

  ASSERT_TRUE(db->exec("UPDATE events SET device = 0, size = -5"));
  auto negative = LiveTail(path).poll();
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("negative size"), std::string::npos) << negative.error().message;

  ASSERT_TRUE(db->exec("UPDATE events SET size = 5, action = 99"));
  auto unknown = LiveTail(path).poll();
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown source or action"), std::string::npos);

  // A view in place of the events table is refused before it is read (a recursive CTE would hang).
  ASSERT_TRUE(db->exec("DROP TABLE events"));
  ASSERT_TRUE(db->exec("CREATE VIEW events AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
                       "SELECT x AS seq, 0 AS t_ns, 0 AS device, 0 AS source, 0 AS action, 0 AS addr, 0 AS size, 0 AS stream, "
                       "0 AS category, 0 AS phase, 0 AS stack, 0 AS run FROM r"));
  auto view = LiveTail(path).poll();
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.error().message.find("not a table"), std::string::npos) << view.error().message;
  removeFile(path);
}

TEST(LiveTail, TellsTheWindowARecordingKeepsAndIgnoresANonsenseOne) {
  const std::string path = test::tempPath("live_window.sawtooth");
  removeFile(path);
  auto db = emptyRecordingToEdit(path);
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(LiveTail(path).poll()->window_events, 0u);  // every event kept
  for (const auto& [text, expected] : std::vector<std::pair<std::string, uint64_t>>{
           {"1000000", 1000000}, {"-5", 0}, {"12x", 0}, {"", 0}, {"abc", 0}, {"99999999999999999999999", 0}}) {
    ASSERT_TRUE(db->exec("DELETE FROM meta WHERE key = 'window.last_events'"));
    ASSERT_TRUE(db->exec("INSERT INTO meta(key, value) VALUES('window.last_events', '" + text + "')"));
    auto batch = LiveTail(path).poll();
    ASSERT_TRUE(batch.ok()) << batch.error().message;
    EXPECT_EQ(batch->window_events, expected) << text;
  }
  removeFile(path);
}

TEST(LiveTail, SaysWhenAWindowsCutDeletedRowsItHadNotRead) {
  const std::string path = test::tempPath("live_behind.sawtooth");
  removeFile(path);
  auto db = emptyRecordingToEdit(path);
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto insert = [&](int first, int last) {
    for (int seq = first; seq < last; ++seq)
      ASSERT_TRUE(db->exec("INSERT INTO events(seq, t_ns, device, source, action, size) VALUES(" + std::to_string(seq) + ", " +
                           std::to_string(seq * 10) + ", 0, 0, 0, 16)"));
  };
  insert(0, 20);
  LiveTail tail(path, /*max_rows=*/8);
  auto first = tail.poll();  // rows 0..7
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->rows.size(), 8u);
  EXPECT_FALSE(first->fell_behind);
  // The recorder's cut at 8: nothing unread lost (rows 0..7 were read), the tail goes on.
  ASSERT_TRUE(db->exec("DELETE FROM events WHERE seq < 8"));
  ASSERT_TRUE(db->exec("INSERT INTO meta(key, value) VALUES('window.first_kept_seq', '8')"));
  auto second = tail.poll();  // rows 8..15
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->fell_behind);
  ASSERT_EQ(second->rows.size(), 8u);
  EXPECT_EQ(second->rows.front().t_ns, 80);
  // Then a cut at 18 with two rows put at its start (the driver's allocations alive then): rows 16
  // and 17 went unread and 16..17 hold other rows now.
  insert(20, 30);
  ASSERT_TRUE(db->exec("DELETE FROM events WHERE seq < 18"));
  insert(16, 18);
  ASSERT_TRUE(db->exec("UPDATE meta SET value = '18' WHERE key = 'window.first_kept_seq'"));
  auto behind = tail.poll();
  ASSERT_TRUE(behind.ok());
  EXPECT_TRUE(behind->fell_behind);
  EXPECT_TRUE(behind->rows.empty());
  // A new tail reads the window from its start.
  auto again = LiveTail(path).poll();
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->fell_behind);
  EXPECT_EQ(again->rows.size(), 14u);  // 16..29
  // Nonsense in the key is no cut.
  for (const char* text : {"-5", "abc", "", "99999999999999999999999"}) {
    ASSERT_TRUE(db->exec(std::string("UPDATE meta SET value = '") + text + "' WHERE key = 'window.first_kept_seq'"));
    LiveTail fresh(path, 4);
    ASSERT_TRUE(fresh.poll().ok());
    auto next = fresh.poll();
    ASSERT_TRUE(next.ok());
    EXPECT_FALSE(next->fell_behind) << text;
  }
  removeFile(path);
}

TEST(LiveTimeline, DevicesSeenOnlyInEventsStartAtZeroAndTimesNeverRunBackwards) {
  LiveTimeline live;
  const LiveRow rows[] = {{10, 1, Source::Allocator, Action::SegmentAlloc, 100},
                          {20, 1, Source::Allocator, Action::Alloc, 40},
                          {15, 0, Source::Allocator, Action::Alloc, 8},  // another device, earlier
                          {12, 1, Source::Allocator, Action::FreeCompleted, 40},
                          {30, 1, Source::Sample, Action::Sample, 500},
                          {31, 1, Source::Driver, Action::Alloc, 1 << 20}};  // not drawn live
  live.append(rows);
  ASSERT_EQ(live.devices().size(), 2u);
  const auto* d1 = live.device(1);
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(d1->allocator_t, (std::vector<int64_t>{10, 20, 20}));
  EXPECT_EQ(d1->allocated.value, (std::vector<int64_t>{0, 40, 0}));
  EXPECT_EQ(d1->reserved.value, (std::vector<int64_t>{100, 100, 100}));
  EXPECT_EQ(d1->device_used.value, (std::vector<int64_t>{500}));
  EXPECT_EQ(live.device(0)->allocated.value, (std::vector<int64_t>{8}));
  EXPECT_EQ(live.events(), 6u);
  EXPECT_EQ(*live.firstTime(), 10);
  EXPECT_EQ(live.lastTime(), 31);
  EXPECT_EQ(live.maxValue(), 500);
}

TEST(LiveSourceMap, TwoRanksOnOneGpuStayTwoLabelledDevices) {
  LiveSourceMap map;
  LiveTimeline live;
  // The first file (the program's own) keeps its ids.
  std::vector<LiveDevice> main_devices = {{-1, "cpu", 0, 0, "", std::nullopt}};
  std::vector<LiveRow> main_rows = {{5, -1, Source::Allocator, Action::Alloc, 7}};
  map.remap(0, "", main_devices, main_rows);
  EXPECT_EQ(main_rows[0].device, -1);
  live.setDevices(main_devices);
  live.append(main_rows);
  // Two ranks, both on cuda:0; rank 1's file lists its device, rank 0's rows come first.
  for (int rank : {0, 1}) {
    std::vector<LiveDevice> devices;
    if (rank == 1) devices.push_back({0, "NVIDIA H200", 1000, 2000, "", std::nullopt});
    std::vector<LiveRow> rows = {{10 + rank, 0, Source::Allocator, Action::SegmentAlloc, 100},
                                 {20 + rank, 0, Source::Allocator, Action::Alloc, 40 * (rank + 1)}};
    map.remap(static_cast<size_t>(rank) + 1, "rank " + std::to_string(rank), devices, rows);
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0].label, "rank " + std::to_string(rank));
    EXPECT_EQ(devices[0].source_device, 0);
    EXPECT_LT(devices[0].device, -1);  // below every id a file can hold
    EXPECT_EQ(rows[0].device, devices[0].device);
    live.setDevices(devices);
    live.append(rows);
  }
  ASSERT_EQ(live.devices().size(), 3u);
  // In the order they appeared, the first file's last.
  const auto& rank0 = live.devices()[0];
  const auto& rank1 = live.devices()[1];
  EXPECT_EQ(rank0.label, "rank 0");
  EXPECT_EQ(rank1.label, "rank 1");
  EXPECT_EQ(rank0.source_device, 0);
  EXPECT_EQ(rank0.allocated.value, (std::vector<int64_t>{0, 40}));
  EXPECT_EQ(rank1.allocated.value, (std::vector<int64_t>{1000, 1080}));  // from its baseline
  EXPECT_EQ(rank1.name, "NVIDIA H200");
  EXPECT_EQ(live.devices()[2].source_device, -1);
  EXPECT_EQ(*live.firstTime(), 5);
  // The same file's device keeps its id on later polls.
  std::vector<LiveDevice> none;
  std::vector<LiveRow> later = {{30, 0, Source::Allocator, Action::FreeCompleted, 80}};
  map.remap(2, "rank 1", none, later);
  EXPECT_EQ(later[0].device, rank1.device);
  EXPECT_EQ(map.idOf(1, 0), rank0.device);
}

// The timeline chart keys a device's lines by an int16_t: the ids given to the other files'
// devices must stay distinct there, and below every id the first file can hold.
TEST(LiveSourceMap, IdsFitTheChartsDeviceKeys) {
  LiveSourceMap map;
  std::set<int16_t> keys;
  for (size_t source = 1; source <= 256; ++source)
    for (DeviceId device : {-1, 0, 7}) {
      const DeviceId id = map.idOf(source, device);
      EXPECT_LT(id, -1);
      EXPECT_EQ(static_cast<int16_t>(id), id);
      EXPECT_TRUE(keys.insert(static_cast<int16_t>(id)).second) << "source " << source << " device " << device;
    }
  // In the order they appeared: rank 0's file before rank 1's.
  EXPECT_LT(map.idOf(1, -1), map.idOf(2, -1));
}

TEST(LiveSourceMap, IdsRunningOutShareTheLastOneBelowTheFirstFiles) {
  LiveSourceMap map;
  DeviceId last = 0;
  for (DeviceId device = 0; device < 40'000; ++device) last = map.idOf(1, device);
  EXPECT_EQ(last, -2);
  EXPECT_EQ(map.idOf(2, 0), -2);
  EXPECT_EQ(map.idOf(1, 0), INT16_MIN);
}

TEST(LiveTimeline, TheFirstTimeIsTheEarliestOfEveryFile) {
  LiveTimeline live;
  const LiveRow late[] = {{50, 0, Source::Allocator, Action::Alloc, 1}};
  const LiveRow early[] = {{20, 1, Source::Allocator, Action::Alloc, 1}};
  live.append(late);
  live.append(early);
  EXPECT_EQ(*live.firstTime(), 20);
  EXPECT_EQ(live.lastTime(), 50);
}

}  // namespace
}  // namespace sawtooth
