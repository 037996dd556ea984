// A file's summaries (format 3) against its events: every fixture converted holds the summaries
// its events give, an older file is summarised into the cache (never written) or upgraded by a
// copy, and a file whose summaries disagree with its events is found out and summarised into the
// cache.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <filesystem>

#include <fmt/format.h>
#include <sqlite3.h>

#include "core/analysis/category_series.h"
#include "core/analysis/trace_summary.h"
#include "core/io/file_bytes.h"
#include "core/analysis/summary_source.h"
#include "core/analysis/timeline_model.h"
#include "core/io/native_format.h"
#include "core/io/native_summary_info.h"
#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"
#include "core/io/summary_json.h"
#include "core/io/trace_loader.h"
#include "tests/core/sqlite_edit.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

namespace fs = std::filesystem;

// Every test keeps its cache to itself.
class Summaries : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = test::tempPath(std::string("cache-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(cache_);
    setenv("SAWTOOTH_CACHE_DIR", cache_.c_str(), 1);
  }
  void TearDown() override { unsetenv("SAWTOOTH_CACHE_DIR"); }
  std::string cache_;
};

std::string infoOf(const std::string& path) {
  auto t = loadTrace(path);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  if (!t.ok()) return {};
  auto j = nlohmann::json::parse(summaryJson(*t, summarize(*t)));
  return j.dump();
}

// A copy of `path` named `name`, edited by `sql`.
std::string editedCopy(const std::string& path, const std::string& name, const std::string& sql) {
  const std::string copy = test::tempPath(name);
  fs::copy_file(path, copy, fs::copy_options::overwrite_existing);
  test::execSql(copy, sql.c_str());
  return copy;
}

// The thorough check of an edited file: it disagrees, its first difference names `what`, and the
// cache gets summaries rebuilt from the events (where to read them; nullopt after a failure).
std::optional<SummaryPlace> foundOutAndRebuilt(const std::string& edited, const std::string& what) {
  auto found = findSummaries(edited);
  EXPECT_TRUE(found.ok() && found->has_value()) << "no summaries in " << edited;
  if (!found.ok() || !found->has_value()) return std::nullopt;
  auto verdict = verifySummaries(**found);
  EXPECT_TRUE(verdict.ok()) << (verdict.ok() ? "" : verdict.error().message);
  if (!verdict.ok()) return std::nullopt;
  EXPECT_FALSE(verdict->check.agree());
  EXPECT_FALSE(verdict->check.first_differences.empty());
  if (!verdict->check.first_differences.empty()) {
    EXPECT_NE(verdict->check.first_differences[0].find(what), std::string::npos) << verdict->check.first_differences[0];
  }
  EXPECT_TRUE(verdict->rebuilt);
  return verdict->rebuilt;
}

// A file written before a summaries' table (the table dropped): its summaries agree with its events.
void expectAgrees(const std::string& older) {
  auto found = findSummaries(older);
  ASSERT_TRUE(found.ok() && found->has_value());
  auto verdict = verifySummaries(**found);
  ASSERT_TRUE(verdict.ok()) << verdict.error().message;
  EXPECT_TRUE(verdict->check.agree())
      << (verdict->check.first_differences.empty() ? "" : verdict->check.first_differences[0]);
}

TEST_F(Summaries, EveryFixtureConvertedHoldsTheSummariesItsEventsGive) {
  for (const char* fixture : {"anatomy_adam_snapshot.pickle", "oom_mlp_snapshot_protocol2.pickle.gz",
                              "anatomy_adam_profiler_trace.json.gz", "h200_allocator_expandable.pickle",
                              "synthetic_window_streams.pickle"}) {
    auto trace = loadTrace(test::dataPath(fixture));
    ASSERT_TRUE(trace.ok()) << fixture;
    const std::string path = test::tempPath(std::string(fixture) + ".summarised.sawtooth");
    ASSERT_TRUE(writeNative(*trace, path).ok());
    auto found = findSummaries(path);
    ASSERT_TRUE(found.ok()) << found.error().message;
    ASSERT_TRUE(found->has_value()) << fixture;
    EXPECT_FALSE((*found)->cached);
    auto verdict = verifySummaries(**found);
    ASSERT_TRUE(verdict.ok()) << verdict.error().message;
    EXPECT_TRUE(verdict->check.agree()) << fixture << ": "
                                        << (verdict->check.first_differences.empty() ? ""
                                                                                      : verdict->check.first_differences[0]);
    EXPECT_EQ(verdict->check.events, trace->events.size());
    EXPECT_FALSE(verdict->rebuilt);
  }
}

// An allocation at an address a block of a segment already holds (a free the trace lost) puts a
// second block at that address outside the segments; an allocator checkpoint holds both. The
// checkpoint tables kept one row per address, so the stored state lost a block and `check` found
// the file's summaries disagreeing with its own events (seen on a converted 2 GB snapshot).
TEST_F(Summaries, ACheckpointKeepsTwoBlocksAtOneAddress) {
  Trace t;
  t.deviceInfo(0);
  int64_t now = 0;
  auto push = [&](Action action, uint64_t addr, int64_t size) {
    Event e;
    e.t_ns = now += 1000;
    e.action = action;
    e.addr = addr;
    e.size = size;
    t.events.push(e);
  };
  constexpr uint64_t kSegment = 0x7f0000000000ull;
  push(Action::SegmentAlloc, kSegment, 2 << 20);
  push(Action::Alloc, kSegment, 1 << 20);
  push(Action::Alloc, kSegment, 1 << 20);  // again, without a free: outside the segments
  // Past the first checkpoint after the trace's start (every 65,536 allocator events).
  for (int i = 0; i < 33000; ++i) {
    push(Action::Alloc, kSegment + (1 << 20), 512);
    push(Action::FreeCompleted, kSegment + (1 << 20), 512);
  }
  const std::string path = test::tempPath("two-blocks-one-address.sawtooth");
  ASSERT_TRUE(writeNative(t, path).ok());
  auto found = findSummaries(path);
  ASSERT_TRUE(found.ok() && found->has_value());
  auto verdict = verifySummaries(**found);
  ASSERT_TRUE(verdict.ok()) << verdict.error().message;
  EXPECT_TRUE(verdict->check.agree()) << (verdict->check.first_differences.empty() ? ""
                                                                                  : verdict->check.first_differences[0]);
}

TEST_F(Summaries, AnOlderFileIsSummarisedIntoTheCacheAndNeverWritten) {
  const std::string sample = std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth";
  const std::string path = test::tempPath("format1.sawtooth");
  fs::copy_file(sample, path, fs::copy_options::overwrite_existing);
  const auto before = readFileBytes(path).value();
  std::string why;
  auto found = findSummaries(path, &why);
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
  EXPECT_NE(why.find("format 1"), std::string::npos) << why;
  auto place = summariesOf(path);
  ASSERT_TRUE(place.ok()) << place.error().message;
  EXPECT_TRUE(place->cached);
  EXPECT_EQ(fs::path(place->summaries).parent_path().parent_path().string(), cache_);
  // Found there the next time, and right.
  found = findSummaries(path);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->summaries, place->summaries);
  auto verdict = verifySummaries(**found);
  ASSERT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict->check.agree());
  EXPECT_EQ(readFileBytes(path).value(), before);
  for (const char* side : {"-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(path + side));
}

TEST_F(Summaries, AnOlderFileUpgradesByACopyWithEverythingKept) {
  const std::string sample = std::string(SAWTOOTH_SAMPLES) + "/checkpointing.sawtooth";
  const std::string out = test::tempPath("upgraded.sawtooth");
  ASSERT_TRUE(upgradeNative(sample, out).ok());
  EXPECT_EQ(infoOf(out), infoOf(sample));
  auto found = findSummaries(out);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_FALSE((*found)->cached);
  auto verdict = verifySummaries(**found);
  ASSERT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict->check.agree());
}

TEST_F(Summaries, AHandEditedEventIsFoundAndTheCacheGetsTheRightSummaries) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(trace.ok());
  const std::string path = test::tempPath("edited.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  test::execSql(path, "UPDATE events SET size = size + 4096 WHERE seq = 100");
  const auto before = readFileBytes(path).value();
  // The quick check cannot see it (counts agree); the thorough one does.
  auto found = findSummaries(path);
  ASSERT_TRUE(found.ok() && found->has_value());
  auto verdict = verifySummaries(**found);
  ASSERT_TRUE(verdict.ok()) << verdict.error().message;
  EXPECT_FALSE(verdict->check.agree());
  EXPECT_GT(verdict->check.differences, 0u);
  ASSERT_TRUE(verdict->rebuilt);
  EXPECT_TRUE(verdict->rebuilt->cached);
  EXPECT_NE(verdict->rebuilt->why_cached.find("disagree"), std::string::npos) << verdict->rebuilt->why_cached;
  auto again = verifySummaries(*verdict->rebuilt);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->check.agree());
  EXPECT_EQ(readFileBytes(path).value(), before);
}

// `info --summaries` says how many out-of-memory events the index holds and where the first is;
// without the index it says none is kept (null in JSON), and points to `oom --summaries`.
TEST_F(Summaries, InfoFromTheSummariesCountsTheOutOfMemoryEvents) {
  auto trace = loadTrace(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"));
  ASSERT_TRUE(trace.ok());
  uint64_t ooms = 0, first = 0;
  for (size_t i = 0; i < trace->events.size(); ++i)
    if (trace->events.source()[i] == Source::Allocator && trace->events.action()[i] == Action::Oom && ooms++ == 0) first = i;
  ASSERT_GT(ooms, 0u);
  const std::string path = test::tempPath("info-oom.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  auto info = readSummaryInfo(path);
  ASSERT_TRUE(info.ok()) << info.error().message;
  ASSERT_TRUE(info->oom_events);
  EXPECT_EQ(*info->oom_events, ooms);
  ASSERT_TRUE(info->first_oom);
  EXPECT_EQ(info->first_oom->second, first);
  EXPECT_NE(summaryInfoText(*info).find(fmt::format("out-of-memory events  {}", ooms)), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(summaryInfoJson(*info))["oom_events"], ooms);
  const std::string older = test::tempPath("info-oom-older.sawtooth");
  fs::copy_file(path, older, fs::copy_options::overwrite_existing);
  test::execSql(older, "DROP TABLE summary_ooms");
  auto without = readSummaryInfo(older);
  ASSERT_TRUE(without.ok()) << without.error().message;
  EXPECT_FALSE(without->oom_events);
  EXPECT_TRUE(nlohmann::json::parse(summaryInfoJson(*without))["oom_events"].is_null());
  EXPECT_NE(summaryInfoText(*without).find("keep no index"), std::string::npos);
}

// The out-of-memory index: every OOM event of the file, in order; a file from before the index
// (the table dropped, as format 3 first wrote it) reads as before and checks as agreeing; an index
// that lost a row is found out.
TEST_F(Summaries, TheOutOfMemoryIndexHoldsEveryOomEvent) {
  auto trace = loadTrace(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"));
  ASSERT_TRUE(trace.ok());
  std::vector<std::pair<DeviceId, uint64_t>> want;
  for (size_t i = 0; i < trace->events.size(); ++i)
    if (trace->events.source()[i] == Source::Allocator && trace->events.action()[i] == Action::Oom)
      want.emplace_back(trace->events.device()[i], i);
  ASSERT_FALSE(want.empty());
  const std::string path = test::tempPath("oom-index.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  auto open = [](const std::string& p) {
    auto place = summariesOf(p);
    EXPECT_TRUE(place.ok()) << place.error().message;
    auto source = native::FileSummarySource::open(*place);
    EXPECT_TRUE(source.ok()) << source.error().message;
    return std::move(*source);
  };
  auto ooms = open(path)->ooms(100);
  ASSERT_TRUE(ooms.ok()) << ooms.error().message;
  ASSERT_TRUE(ooms->has_value());
  EXPECT_EQ((*ooms)->first, want);
  EXPECT_EQ((*ooms)->count, want.size());
  auto one = open(path)->ooms(1);
  ASSERT_TRUE(one.ok() && one->has_value());
  EXPECT_EQ((*one)->first.size(), 1u);
  EXPECT_EQ((*one)->count, want.size());
  // The same from memory.
  auto memory = summary::MemorySource::build(*trace);
  ASSERT_TRUE(memory.ok());
  auto in_memory = (*memory)->ooms(100);
  ASSERT_TRUE(in_memory.ok() && in_memory->has_value());
  EXPECT_EQ((*in_memory)->first, want);

  // Lost a row: the thorough check says so, and the cache gets the whole index.
  const auto rebuilt_place =
      foundOutAndRebuilt(editedCopy(path, "oom-index-lost.sawtooth", "DELETE FROM summary_ooms"), "out-of-memory");
  ASSERT_TRUE(rebuilt_place);
  auto rebuilt = native::FileSummarySource::open(*rebuilt_place);
  ASSERT_TRUE(rebuilt.ok());
  auto again = (*rebuilt)->ooms(100);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->first, want);

  // Written before the index: no index, and its summaries still agree with its events.
  const std::string older = editedCopy(path, "oom-index-older.sawtooth", "DROP TABLE summary_ooms");
  auto none = open(older)->ooms(100);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_FALSE(none->has_value());
  expectAgrees(older);

  // A hostile row is refused with the file and what is wrong.
  const std::string hostile = editedCopy(path, "oom-index-hostile.sawtooth", "INSERT INTO summary_ooms VALUES(70000, -5)");
  auto refused = open(hostile)->ooms(100);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("summary_ooms"), std::string::npos) << refused.error().message;
}

// Each device's category peaks: as categoryPeaks counts them on the trace read whole; a file from
// before them (the table dropped) reads without them and checks as agreeing; an edited peak is
// found out and the cache gets the right one; a hostile row is refused with the file and table.
TEST_F(Summaries, TheCategoryPeaksAreTheWholeTracesAndAnEditIsFoundOut) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(trace.ok());
  const std::string path = test::tempPath("category-peaks.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  auto whole = loadTrace(path);
  ASSERT_TRUE(whole.ok());
  auto open = [](const std::string& p) {
    auto place = summariesOf(p);
    EXPECT_TRUE(place.ok()) << place.error().message;
    auto source = native::FileSummarySource::open(*place);
    EXPECT_TRUE(source.ok()) << source.error().message;
    return std::move(*source);
  };
  auto rows = open(path)->categoryPeaks();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_TRUE(rows->has_value());
  ASSERT_EQ((*rows)->size(), 1u);
  const summary::CategoryPeaksRow& row = (**rows)[0];
  const CategoryPeaks want = categoryPeaks(*whole, row.device);
  EXPECT_TRUE(row.exact);
  EXPECT_EQ(row.peak, want.peak);
  EXPECT_EQ(row.categorised, want.any_categorised);

  const auto rebuilt_place = foundOutAndRebuilt(
      editedCopy(path, "category-peaks-edited.sawtooth", "UPDATE summary_category_peaks SET peak_activation = peak_activation + 512"),
      "category peaks");
  ASSERT_TRUE(rebuilt_place);
  auto rebuilt = native::FileSummarySource::open(*rebuilt_place);
  ASSERT_TRUE(rebuilt.ok());
  auto again = (*rebuilt)->categoryPeaks();
  ASSERT_TRUE(again.ok() && again->has_value());
  ASSERT_EQ((*again)->size(), 1u);
  EXPECT_EQ((**again)[0].peak, want.peak);

  // A writer that learnt a category for a point it had let go says its peaks are not exact: true
  // to what it says (readers count them from the events), so the file agrees; a wrong categorised
  // flag does not.
  expectAgrees(editedCopy(path, "category-peaks-inexact.sawtooth",
                          "UPDATE summary_category_peaks SET exact = 0, peak_activation = peak_activation + 512"));
  ASSERT_TRUE(foundOutAndRebuilt(editedCopy(path, "category-peaks-inexact-flag.sawtooth",
                                            "UPDATE summary_category_peaks SET exact = 0, categorised = 1 - categorised"),
                                 "category peaks"));

  const std::string older = editedCopy(path, "category-peaks-older.sawtooth", "DROP TABLE summary_category_peaks");
  auto none = open(older)->categoryPeaks();
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_FALSE(none->has_value());
  expectAgrees(older);

  const std::string hostile = editedCopy(path, "category-peaks-hostile.sawtooth", "UPDATE summary_category_peaks SET exact = 7");
  auto refused = open(hostile)->categoryPeaks();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("summary_category_peaks"), std::string::npos) << refused.error().message;
}

TEST_F(Summaries, EventsAddedOrRemovedBehindTheSummariesAreSeenAtOnce) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(trace.ok());
  const std::string path = test::tempPath("cut.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  test::execSql(path, "DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)");
  std::string why;
  auto found = findSummaries(path, &why);
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
  EXPECT_NE(why.find("cover"), std::string::npos) << why;
  auto place = buildCachedSummaries(path, why);
  ASSERT_TRUE(place.ok());
  auto verdict = verifySummaries(*place);
  ASSERT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict->check.agree());
  EXPECT_EQ(verdict->check.events, trace->events.size() - 1);
}

// A file read on demand draws what the same trace in memory draws, at every zoom, and stores the
// allocator's states the memory replay has.
TEST_F(Summaries, AFileReadOnDemandDrawsWhatTheTraceInMemoryDraws) {
  auto trace = loadTrace(test::dataPath("h200_allocator_expandable.pickle"));
  ASSERT_TRUE(trace.ok());
  const std::string path = test::tempPath("on-demand.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  auto place = summariesOf(path);
  ASSERT_TRUE(place.ok());
  auto file = native::FileSummarySource::open(*place);
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto memory = summary::MemorySource::build(*trace);
  ASSERT_TRUE(memory.ok());
  auto* memory_source = memory->get();
  TimelineModel from_file(std::shared_ptr<summary::SummarySource>(std::move(*file)));
  TimelineModel from_memory(std::shared_ptr<summary::SummarySource>(std::move(*memory)));
  ASSERT_TRUE(from_file.refresh().ok());
  ASSERT_TRUE(from_memory.refresh().ok());
  ASSERT_EQ(from_file.devices().size(), from_memory.devices().size());
  for (const auto& d : from_memory.devices()) {
    for (bool by_time : {false, true}) {
      const double x0 = from_memory.xMin(by_time), x1 = from_memory.xMax(by_time);
      for (double zoom : {1.0, 0.1, 0.01}) {
        const double hi = x0 + (x1 - x0) * zoom;
        for (const auto& s : d.series) {
          auto a = from_file.query(d.device, s.series, by_time, x0, hi, 400);
          auto b = from_memory.query(d.device, s.series, by_time, x0, hi, 400);
          ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.error().message : a.error().message);
          ASSERT_EQ(a->size(), b->size());
          for (size_t i = 0; i < a->size(); ++i) EXPECT_EQ((*a)[i].y, (*b)[i].y);
        }
      }
    }
    auto pa = from_file.peak(d.device, summary::kAllocated), pb = from_memory.peak(d.device, summary::kAllocated);
    ASSERT_TRUE(pa.ok() && pb.ok());
    EXPECT_EQ(pa->value, pb->value);
    EXPECT_EQ(pa->seq, pb->seq);
    for (int64_t position : {int64_t{0}, d.allocator_points / 2, d.allocator_points}) {
      auto ca = from_file.source().checkpointAtOrBefore(d.device, position);
      auto cb = memory_source->checkpointAtOrBefore(d.device, position);
      ASSERT_TRUE(ca.ok() && cb.ok());
      ASSERT_EQ(ca->has_value(), cb->has_value());
      if (!*ca) continue;
      EXPECT_EQ((*ca)->position, (*cb)->position);
      EXPECT_EQ((*ca)->state.segments.size(), (*cb)->state.segments.size());
      EXPECT_EQ((*ca)->state.allocated_bytes, (*cb)->state.allocated_bytes);
      EXPECT_EQ((*ca)->state.free_bytes, (*cb)->state.free_bytes);
    }
  }
}

// The phases of a window read from the file by time (a search over their ids, then the rows of
// the window only) are those of the trace in memory that meet it.
TEST_F(Summaries, AFilesPhasesOfAWindowAreThoseThatMeetIt) {
  auto trace = loadTrace(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth");
  ASSERT_TRUE(trace.ok());
  ASSERT_GT(trace->phases.size(), 10u);
  const std::string path = test::tempPath("phases.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  auto place = summariesOf(path);
  ASSERT_TRUE(place.ok());
  auto file = native::FileSummarySource::open(*place);
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto memory = summary::MemorySource::build(*trace);
  ASSERT_TRUE(memory.ok());
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Phase& p : trace->phases) lo = std::min(lo, p.begin_ns), hi = std::max(hi, p.end_ns);
  auto key = [](const std::vector<Phase>& v) {
    std::vector<std::tuple<int64_t, int64_t, std::string>> out;
    for (const Phase& p : v) out.emplace_back(p.begin_ns, p.end_ns, p.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  size_t nonempty = 0;
  for (auto [a, b] : {std::pair{0.0, 1.0}, std::pair{0.3, 0.31}, std::pair{0.5, 0.7}, std::pair{0.999, 1.5}, std::pair{-1.0, -0.5}}) {
    const int64_t t0 = lo + static_cast<int64_t>(static_cast<double>(hi - lo) * a);
    const int64_t t1 = lo + static_cast<int64_t>(static_cast<double>(hi - lo) * b);
    std::vector<Phase> from_file, from_memory;
    ASSERT_TRUE((*file)->phases(t0, t1, 100000, from_file).ok());
    ASSERT_TRUE((*memory)->phases(t0, t1, 100000, from_memory).ok());
    EXPECT_EQ(key(from_file), key(from_memory)) << a << " .. " << b;
    nonempty += !from_file.empty();
  }
  EXPECT_GE(nonempty, 3u);
  // At most `max`.
  std::vector<Phase> few;
  ASSERT_TRUE((*file)->phases(lo, hi, 3, few).ok());
  EXPECT_EQ(few.size(), 3u);
}

// The steps and phases of a window read from the file by id (a search, then the rows back from the
// window's end) are those the trace in memory has, nested phases and windows past either end too.
TEST_F(Summaries, AFilesSpansOfAWindowAreThoseThatMeetIt) {
  auto trace = loadTrace(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth");
  ASSERT_TRUE(trace.ok());
  const std::string path = test::tempPath("spans.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  auto place = summariesOf(path);
  ASSERT_TRUE(place.ok());
  auto file = native::FileSummarySource::open(*place);
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto memory = summary::MemorySource::build(*trace);
  ASSERT_TRUE(memory.ok());
  auto ids = [](const std::vector<summary::SpanRow>& v) {
    std::vector<int64_t> out;
    for (const auto& r : v) out.push_back(r.id);
    return out;
  };
  std::vector<summary::SpanRow> all;
  ASSERT_TRUE((*memory)->spans(0, summary::SpanKind::Step, INT64_MIN, INT64_MAX, all).ok());
  ASSERT_GT(all.size(), 3u);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& r : all) lo = std::min(lo, r.begin_ns), hi = std::max(hi, r.end_ns);
  size_t nonempty = 0;
  for (auto kind : {summary::SpanKind::Step, summary::SpanKind::Phase}) {
    for (auto [a, b] : {std::pair{0.0, 1.0}, std::pair{0.3, 0.31}, std::pair{0.5, 0.7}, std::pair{0.999, 1.5},
                        std::pair{-1.0, -0.5}, std::pair{-1.0, 2.0}, std::pair{0.42, 0.42001}}) {
      const int64_t t0 = lo + static_cast<int64_t>(static_cast<double>(hi - lo) * a);
      const int64_t t1 = lo + static_cast<int64_t>(static_cast<double>(hi - lo) * b);
      std::vector<summary::SpanRow> from_file, from_memory;
      ASSERT_TRUE((*file)->spans(0, kind, t0, t1, from_file).ok());
      ASSERT_TRUE((*memory)->spans(0, kind, t0, t1, from_memory).ok());
      EXPECT_EQ(ids(from_file), ids(from_memory)) << static_cast<int>(kind) << ": " << a << " .. " << b;
      nonempty += !from_file.empty();
    }
  }
  EXPECT_GE(nonempty, 8u);
}

// `info --summaries`: the figures a file's summaries give are the ones a pass over its events gives.
TEST_F(Summaries, TheFiguresFromTheSummariesAreTheWholeFilesFigures) {
  auto trace = loadTrace(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth");
  ASSERT_TRUE(trace.ok());
  const std::string path = test::tempPath("info.sawtooth");
  ASSERT_TRUE(writeNative(*trace, path).ok());
  auto info = readSummaryInfo(path);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->events, trace->events.size());
  EXPECT_TRUE(info->why_cached.empty());
  const TraceSummary whole = summarize(*trace);
  ASSERT_EQ(info->devices.size(), whole.devices.size());
  for (size_t i = 0; i < whole.devices.size(); ++i) {
    const DeviceSummary& w = whole.devices[i];
    const SummaryDeviceInfo& s = info->devices[i];
    EXPECT_EQ(s.device, w.device);
    EXPECT_EQ(s.allocator_events, static_cast<int64_t>(w.allocator_events));
    EXPECT_EQ(s.peak_allocated.value, w.peak_allocated.value);
    EXPECT_EQ(s.peak_allocated.t_ns, w.peak_allocated.t_ns);
    EXPECT_EQ(s.final_allocated, w.final_allocated);
    EXPECT_EQ(s.peak_reserved.value, w.peak_reserved.value);
    if (w.has_categories) {
      ASSERT_TRUE(s.categorised);
      int64_t sum = 0;
      for (int64_t b : s.at_peak) sum += b;
      EXPECT_EQ(sum, s.peak_allocated.value);  // every byte at the peak is in a category
    }
  }
  std::vector<summary::SpanRow> steps;
  auto memory = summary::MemorySource::build(*trace);
  ASSERT_TRUE(memory.ok());
  ASSERT_TRUE((*memory)->spans(0, summary::SpanKind::Step, INT64_MIN, INT64_MAX, steps).ok());
  const auto gpu = std::find_if(info->devices.begin(), info->devices.end(), [](const auto& d) { return d.device == 0; });
  ASSERT_NE(gpu, info->devices.end());
  EXPECT_EQ(gpu->steps, static_cast<int64_t>(steps.size()));
  ASSERT_TRUE(gpu->peak_step.has_value());
  EXPECT_EQ(gpu->peak_step_allocated, gpu->peak_allocated.value);
  EXPECT_NE(summaryInfoText(*info).find("peak allocated"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(summaryInfoJson(*info))["devices"][0]["peak_allocated_bytes"], info->devices[0].peak_allocated.value);
}

}  // namespace
}  // namespace sawtooth
