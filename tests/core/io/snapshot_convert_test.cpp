// `sawtooth-trace convert` of a PyTorch snapshot as a stream (io/snapshot_convert.h): the file it writes holds, table
// by table and row by row, what converting the whole trace in memory writes, and gives the figures the snapshot itself
// gives; a file the stream cannot take says so (the caller converts it whole).

#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/analysis/trace_summary.h"
#include "core/io/native_format.h"
#include "core/io/snapshot_convert.h"
#include "core/io/summary_json.h"
#include "core/io/trace_loader.h"
#include "tests/core/io/pickle_writer.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

using test::ObjP;

// Every row of a table, in its key's order, as text.
std::string dump(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  std::string out;
  const std::string sql = "SELECT * FROM " + table + " ORDER BY 1, 2";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    out = std::string("no table: ") + sqlite3_errmsg(db);
  } else {
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* text = sqlite3_column_text(st, c);
        out += text ? reinterpret_cast<const char*>(text) : "NULL";
        out += '|';
      }
      out += '\n';
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

const char* const kTables[] = {"meta",
                               "devices",
                               "phases",
                               "frames",
                               "stacks",
                               "segments",
                               "segment_blocks",
                               "events",
                               "summary_series",
                               "summary_axes",
                               "summary_axis_nodes",
                               "summary_nodes",
                               "summary_spans",
                               "summary_event_index",
                               "summary_checkpoints",
                               "summary_checkpoint_segments",
                               "summary_checkpoint_blocks"};

// `info --json` without what says which file it is.
nlohmann::json figures(const std::string& path) {
  auto trace = loadTrace(path);
  EXPECT_TRUE(trace.ok()) << path << ": " << (trace.ok() ? "" : trace.error().message);
  if (!trace.ok()) return {};
  auto j = nlohmann::json::parse(summaryJson(*trace, summarize(*trace)));
  j.erase("format");
  j.erase("source_format");
  if (j.contains("meta")) j["meta"].erase("source_format");
  return j;
}

void expectStreamedAsWhole(const std::string& snapshot, const std::string& name) {
  SCOPED_TRACE(name);
  const std::string streamed = test::tempPath(name + ".streamed.sawtooth");
  const std::string whole = test::tempPath(name + ".whole.sawtooth");
  bool read_whole = false;
  Status st = convertSnapshotStreaming(snapshot, streamed, ReadLimits{}, read_whole);
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto trace = loadTrace(snapshot);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_TRUE(writeNative(*trace, whole).ok());
  for (const char* table : kTables) EXPECT_EQ(dump(streamed, table), dump(whole, table)) << table;
  EXPECT_EQ(figures(streamed), figures(snapshot));
}

TEST(SnapshotConvert, EverySnapshotFixtureStreamsIntoTheFileTheWholeTraceWrites) {
  for (const char* fixture :
       {"anatomy_adam_snapshot.pickle", "anatomy_adam_snapshot_protocol2.pickle",
        "anatomy_adam_snapshot_protocol5.pickle", "h200_allocator_expandable.pickle", "h200_allocator_oom.pickle",
        "h200_allocator_roundup.pickle", "h200_allocator_window.pickle", "synthetic_expandable_streams.pickle",
        "synthetic_expandable_window.pickle", "synthetic_roundup_oversize.pickle", "synthetic_window_streams.pickle"})
    expectStreamedAsWhole(test::dataPath(fixture), fixture);
}

struct Keys {
  ObjP action = test::text("action"), addr = test::text("addr"), size = test::text("size"),
       stream = test::text("stream"), time_us = test::text("time_us"), frames = test::text("frames"),
       name = test::text("name"), filename = test::text("filename"), line = test::text("line");
  std::map<std::string, ObjP> actions;
  ObjP actionText(const std::string& a) {
    auto& o = actions[a];
    if (!o) o = test::text(a);
    return o;
  }
};

// Two devices of 40,000 events each (the rows are handed on 65,536 at a time:
// one hand-over ends inside the second device's list), frames lists of their own over shared frame dicts, a segment
// with a block alive from before the trace, annotations after the events in the file. `bad_size_at`: the allocation
// (counted over both devices) whose size is -5.
std::string twoDeviceSnapshot(int64_t bad_size_at = -1) {
  Keys k;
  std::vector<ObjP> frame_dicts;
  for (int f = 0; f < 6; ++f)
    frame_dicts.push_back(test::dict({{k.name, test::text("fn" + std::to_string(f))},
                                      {k.filename, test::text("model.py")},
                                      {k.line, test::integer(10 + f)}}));
  std::vector<ObjP> devices;
  int64_t t = 1'000'000, n = 0;
  for (int device = 0; device < 2; ++device) {
    std::vector<ObjP> events;
    const uint64_t base = device == 0 ? 0x7f0000000000 : 0x7f1000000000;
    events.push_back(test::dict({{k.action, k.actionText("segment_alloc")},
                                 {k.addr, test::integer(base)},
                                 {k.size, test::integer(64 << 20)},
                                 {k.stream, test::integer(0)},
                                 {k.time_us, test::integer(t++)},
                                 {k.frames, test::list()}}));
    for (int i = 0; events.size() < 40000; ++i) {
      const auto addr = static_cast<int64_t>(base + 4096 + static_cast<uint64_t>(i % 100) * 8192);
      const int64_t bytes = (n++ == bad_size_at) ? -5 : 512 + (i % 7) * 512;
      for (const char* a : {"alloc", "free_requested", "free_completed"})
        events.push_back(test::dict({{k.action, k.actionText(a)},
                                     {k.addr, test::integer(addr)},
                                     {k.size, test::integer(bytes)},
                                     {k.stream, test::integer(0)},
                                     {k.time_us, test::integer(t++)},
                                     {k.frames, test::list({frame_dicts[i % 6], frame_dicts[(i + 1) % 6]})}}));
    }
    devices.push_back(test::list(events));
  }
  auto block = test::dict({{test::text("address"), test::integer(0x7f0000000000)},
                           {test::text("size"), test::integer(1 << 20)},
                           {test::text("requested_size"), test::integer(1 << 20)},
                           {test::text("state"), test::text("active_allocated")},
                           {k.frames, test::list({frame_dicts[0]})}});
  std::vector<ObjP> segments;
  for (int device = 0; device < 2; ++device)
    segments.push_back(
        test::dict({{test::text("device"), test::integer(device)},
                    {test::text("address"), test::integer(device == 0 ? 0x7f0000000000 : 0x7f1000000000)},
                    {test::text("total_size"), test::integer(64 << 20)},
                    {test::text("stream"), test::integer(0)},
                    {test::text("segment_type"), test::text("large")},
                    {test::text("segment_pool_id"), test::tuple({test::integer(0), test::integer(0)})},
                    {test::text("blocks"), test::list(device == 0 ? std::vector<ObjP>{block} : std::vector<ObjP>{})}}));
  std::vector<ObjP> annotations;
  for (int step = 0; step < 4; ++step)
    for (const char* stage : {"START", "END"})
      annotations.push_back(
          test::dict({{test::text("stage"), test::text(stage)},
                      {k.name, test::text("step")},
                      {test::text("device"), test::integer(step % 2)},
                      {k.time_us, test::integer(1'000'000 + step * 20000 + (stage[0] == 'E') * 15000)}}));
  auto root =
      test::dict({{test::text("segments"), test::list(segments)},
                  {test::text("device_traces"), test::list(devices)},
                  {test::text("allocator_settings"), test::dict({{test::text("max_split_size"), test::integer(-1)}})},
                  {test::text("external_annotations"), test::list(annotations)}});
  return test::Pickler(4).dumps(root);
}

std::string written(const std::string& name, const std::string& bytes) {
  const std::string path = test::tempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(SnapshotConvert, TwoDevicesPastAHandOverAndAnnotationsAfterTheEvents) {
  expectStreamedAsWhole(written("two_devices.pickle", twoDeviceSnapshot()), "two_devices");
}

TEST(SnapshotConvert, AFileTheStreamCannotTakeIsLeftToTheWholeTrace) {
  // A size to refuse: the whole trace's reading says where.
  const std::string bad = written("two_devices_bad_size.pickle", twoDeviceSnapshot(20000));
  bool whole = false;
  EXPECT_FALSE(convertSnapshotStreaming(bad, test::tempPath("bad.sawtooth"), ReadLimits{}, whole).ok());
  EXPECT_TRUE(whole);
  auto refused = loadTrace(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("size -5 is negative"), std::string::npos) << refused.error().message;
  // One event dict listed again and again; a compressed snapshot.
  for (const char* fixture : {"fuzz_one_event_dict_many_times.bin", "oom_mlp_snapshot_protocol2.pickle.gz"}) {
    whole = false;
    EXPECT_FALSE(
        convertSnapshotStreaming(test::dataPath(fixture), test::tempPath("other.sawtooth"), ReadLimits{}, whole).ok())
        << fixture;
    EXPECT_TRUE(whole) << fixture;
  }
}

}  // namespace
}  // namespace sawtooth
