// The report figures of a trace read on demand (summary_report.h): the plan against the count and
// the out-of-memory post-mortem equal the trace read whole, from a file and from memory, and the
// allocator view at the failure explains it as the whole trace's segment map does.

#include <gtest/gtest.h>

#include <atomic>

#include "core/analysis/allocator_replay.h"
#include "core/analysis/summary_report.h"
#include "core/analysis/summary_source.h"
#include "core/io/event_pages.h"
#include "core/io/native_format.h"
#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"
#include "core/io/trace_loader.h"
#include "tests/core/analysis_test_data.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

// A file written from `source` and opened as the app opens one too large to read whole.
struct OnDemandFile {
  std::shared_ptr<const Trace> whole;
  std::shared_ptr<const EventPages> pages;
  std::unique_ptr<TimelineModel> model;
};

OnDemandFile openOnDemand(const std::string& source, const std::string& name) {
  OnDemandFile f;
  auto trace = loadTrace(source);
  EXPECT_TRUE(trace.ok()) << source;
  if (!trace.ok()) return f;
  const std::string path = test::tempPath("report-" + name + ".sawtooth");
  EXPECT_TRUE(writeNative(*trace, path).ok());
  auto whole = loadTrace(path);
  EXPECT_TRUE(whole.ok()) << whole.error().message;
  f.whole = std::make_shared<const Trace>(std::move(*whole));
  auto pages = EventPages::open(path);
  EXPECT_TRUE(pages.ok()) << pages.error().message;
  f.pages = std::move(*pages);
  auto place = summariesOf(path);
  EXPECT_TRUE(place.ok()) << place.error().message;
  auto file = native::FileSummarySource::open(*place);
  EXPECT_TRUE(file.ok()) << file.error().message;
  f.model = std::make_unique<TimelineModel>(std::shared_ptr<summary::SummarySource>(std::move(*file)));
  EXPECT_TRUE(f.model->refresh().ok());
  return f;
}

void expectSameTable(const Table& got, const Table& want) {
  ASSERT_EQ(got.columns.size(), want.columns.size());
  ASSERT_EQ(got.rowCount(), want.rowCount());
  for (size_t r = 0; r < want.rowCount(); ++r)
    for (size_t c = 0; c < want.columns.size(); ++c) EXPECT_EQ(got.at(r, c).value, want.at(r, c).value) << "row " << r << " column " << c;
}

void expectTheWholeReports(const TraceReport& got, const TraceReport& want) {
  EXPECT_EQ(got.workload, want.workload);
  ASSERT_EQ(got.plan_lines.size(), want.plan_lines.size());
  for (size_t i = 0; i < want.plan_lines.size(); ++i) EXPECT_EQ(got.plan_lines[i].label, want.plan_lines[i].label);
  EXPECT_EQ(got.plan_device, want.plan_device);
  ASSERT_EQ(got.plan_rows.size(), want.plan_rows.size());
  for (size_t i = 0; i < want.plan_rows.size(); ++i) {
    EXPECT_EQ(got.plan_rows[i].what, want.plan_rows[i].what);
    EXPECT_EQ(got.plan_rows[i].plan_bytes, want.plan_rows[i].plan_bytes);
    EXPECT_EQ(got.plan_rows[i].measured_bytes, want.plan_rows[i].measured_bytes) << want.plan_rows[i].what;
  }
  ASSERT_EQ(got.peak_groups.size(), want.peak_groups.size());
  for (size_t i = 0; i < want.peak_groups.size(); ++i) EXPECT_EQ(got.peak_groups[i].peak_allocated, want.peak_groups[i].peak_allocated);
  EXPECT_EQ(got.precision.size(), want.precision.size());
  expectSameTable(got.precision_table, want.precision_table);
  expectSameTable(got.runs, want.runs);
  ASSERT_EQ(got.oom.has_value(), want.oom.has_value());
  if (!want.oom) return;
  const OomReport &g = *got.oom, &w = *want.oom;
  EXPECT_EQ(g.device, w.device);
  EXPECT_EQ(g.device_name, w.device_name);
  EXPECT_EQ(g.event, w.event);
  EXPECT_EQ(g.t_ns, w.t_ns);
  EXPECT_EQ(g.index, w.index);
  EXPECT_EQ(g.requested, w.requested);
  EXPECT_EQ(g.device_free, w.device_free);
  EXPECT_EQ(g.allocated, w.allocated);
  EXPECT_EQ(g.live_blocks, w.live_blocks);
  EXPECT_EQ(g.itemised, w.itemised);
  EXPECT_EQ(g.reported_free, w.reported_free);
  EXPECT_EQ(g.reported_total, w.reported_total);
  expectSameTable(g.blocks, w.blocks);
}

TraceReport onDemandReport(OnDemandFile& f) {
  TraceReport report = runFiguresReport(*f.pages->tables());
  auto facts = wholeTraceFacts(f.model->source(), *f.pages->tables());
  EXPECT_TRUE(facts.ok()) << facts.error().message;
  if (!facts.ok()) return report;
  Status st = addWholeTraceFigures(report, *f.model, *f.pages->tables(), *facts);
  EXPECT_TRUE(st.ok()) << st.error().message;
  return report;
}

TEST(SummaryReport, TheOutOfMemoryPostMortemIsTheWholeTraces) {
  for (const char* name : {"oom_mlp_snapshot_protocol2.pickle.gz", "h200_allocator_oom.pickle"}) {
    SCOPED_TRACE(name);
    OnDemandFile f = openOnDemand(test::dataPath(name), name);
    ASSERT_TRUE(f.model);
    const auto whole = buildTraceReport(std::make_shared<const TraceAnalysis>(f.whole));
    ASSERT_TRUE(whole->oom.has_value());
    ASSERT_GT(whole->oom->blocks.rowCount(), 0u);
    expectTheWholeReports(onDemandReport(f), *whole);
  }
}

TEST(SummaryReport, ThePlanAgainstTheCountIsTheWholeTraces) {
  OnDemandFile f = openOnDemand(test::samplePath("anatomy.sawtooth"), "anatomy");
  ASSERT_TRUE(f.model);
  const auto whole = buildTraceReport(std::make_shared<const TraceAnalysis>(f.whole));
  ASSERT_FALSE(whole->plan_rows.empty());
  ASSERT_FALSE(whole->oom.has_value());
  expectTheWholeReports(onDemandReport(f), *whole);
}

// The allocator view of a big file at the failure explains it, as the whole trace's map does.
TEST(SummaryReport, TheSegmentMapAtTheFailureExplainsIt) {
  OnDemandFile f = openOnDemand(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"), "oom-map");
  ASSERT_TRUE(f.model);
  auto facts = wholeTraceFacts(f.model->source(), *f.pages->tables());
  ASSERT_TRUE(facts.ok() && facts->first_oom);
  EXPECT_GE(facts->ooms, 1u);
  const DeviceId device = facts->first_oom->device;
  auto position = f.model->pointOfSeq(device, facts->first_oom->seq);
  ASSERT_TRUE(position.ok());
  auto moment = momentFromSummaries(*f.model, *f.pages->tables(), device, *position);
  ASSERT_TRUE(moment.ok()) << moment.error().message;
  const auto map = segmentMapOf(*f.pages->tables(), *moment);
  ASSERT_TRUE(map && map->oom);
  auto replay = replayAllocator(f.whole, device);
  ASSERT_TRUE(replay.ok());
  const SegmentMap want = segmentMapAt(*f.whole, *replay->history, *position);
  ASSERT_TRUE(want.oom);
  EXPECT_EQ(map->oom->event, want.oom->event);
  EXPECT_EQ(map->oom->summary, want.oom->summary);
  EXPECT_EQ(map->oom->details, want.oom->details);
  EXPECT_EQ(map->oom->in_the_way.size(), want.oom->in_the_way.size());
  // Elsewhere there is nothing to explain.
  auto before = momentFromSummaries(*f.model, *f.pages->tables(), device, *position - 1);
  ASSERT_TRUE(before.ok());
  const auto plain = segmentMapOf(*f.pages->tables(), *before);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->oom.has_value());
}

// Two devices' allocator events among host events, in runs: many levels of the pyramid.
Trace interleavedTrace(size_t events) {
  Trace t;
  for (size_t i = 0; i < events; ++i) {
    Event e;
    e.t_ns = static_cast<int64_t>(i) * 10;
    e.device = (i / 7) % 3 == 0 ? 1 : 0;
    e.source = i % 5 == 4 ? Source::Host : Source::Allocator;
    e.action = (i / 2) % 2 == 0 ? Action::Alloc : Action::FreeCompleted;
    e.addr = 0x1000 * ((i / 4) % 64 + 1);
    e.size = 512;
    t.events.push(e);
  }
  return t;
}

// Every allocator point's event maps back to the point; an event between points to the count of
// points before it.
TEST(SummaryReport, AnEventsAllocatorPointComesFromTheSummaries) {
  const Trace trace = interleavedTrace(60000);
  auto source = summary::MemorySource::build(trace);
  ASSERT_TRUE(source.ok());
  TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  ASSERT_TRUE(model.refresh().ok());
  ASSERT_EQ(model.devices().size(), 2u);
  for (const TimelineModel::Device& d : model.devices()) {
    std::vector<uint64_t> seqs;
    for (size_t i = 0; i < trace.events.size(); ++i)
      if (trace.events.device()[i] == d.device && trace.events.source()[i] == Source::Allocator) seqs.push_back(i);
    ASSERT_EQ(static_cast<int64_t>(seqs.size()), d.allocator_points);
    ASSERT_GT(d.allocator_points, summary::kLeafPoints * summary::kFanout * summary::kFanout);
    for (size_t p = 0; p < seqs.size(); ++p) {
      auto got = model.pointOfSeq(d.device, seqs[p]);
      ASSERT_TRUE(got.ok());
      ASSERT_EQ(*got, static_cast<int64_t>(p)) << "device " << d.device;
      if (p > 0 && seqs[p] > seqs[p - 1] + 1) {
        ASSERT_EQ(*model.pointOfSeq(d.device, seqs[p] - 1), static_cast<int64_t>(p)) << "device " << d.device;
      }
    }
    EXPECT_EQ(*model.pointOfSeq(d.device, 0), 0);
    EXPECT_EQ(*model.pointOfSeq(d.device, seqs.back() + 1), d.allocator_points);
  }
}

// Every device's category peaks and the first OOM in one pass, from memory as from a file: what
// the whole trace counts, device by device.
TEST(SummaryReport, OnePassCountsEveryDevicesCategoryPeaks) {
  Trace trace = interleavedTrace(20000);
  for (size_t i = 0; i < trace.events.size(); i += 3) trace.events.setCategory(i, Category::Activation);
  Event oom;
  oom.t_ns = 1'000'000;
  oom.device = 1;
  oom.action = Action::Oom;
  oom.size = 1 << 30;
  trace.events.push(oom);
  trace.events.push(oom);
  auto memory = summary::MemorySource::build(trace);
  ASSERT_TRUE(memory.ok());
  const std::string path = test::tempPath("report-two-devices.sawtooth");
  ASSERT_TRUE(writeNative(trace, path).ok());
  auto place = summariesOf(path);
  ASSERT_TRUE(place.ok()) << place.error().message;
  auto file = native::FileSummarySource::open(*place);
  ASSERT_TRUE(file.ok()) << file.error().message;
  for (summary::SummarySource* source : {static_cast<summary::SummarySource*>(memory->get()),
                                         static_cast<summary::SummarySource*>(file->get())}) {
    auto facts = wholeTraceFacts(*source, trace);
    ASSERT_TRUE(facts.ok()) << facts.error().message;
    ASSERT_EQ(facts->category_peaks.size(), 2u);
    for (DeviceId d : {0, 1}) {
      const CategoryPeaks want = categoryPeaks(trace, d);
      EXPECT_EQ(facts->category_peaks.at(d).peak, want.peak) << d;
      EXPECT_EQ(facts->category_peaks.at(d).any_categorised, want.any_categorised) << d;
    }
    ASSERT_TRUE(facts->first_oom.has_value());
    EXPECT_EQ(facts->first_oom->device, 1);
    EXPECT_EQ(facts->first_oom->seq, 20000u);
    EXPECT_EQ(facts->ooms, 2u);
  }
}

// The index finds the OOM the pass finds, and its post-mortem is the whole trace's.
TEST(SummaryReport, TheOutOfMemoryIndexFindsWhatThePassFinds) {
  for (const char* name : {"oom_mlp_snapshot_protocol2.pickle.gz", "h200_allocator_oom.pickle", "anatomy_adam_snapshot.pickle"}) {
    SCOPED_TRACE(name);
    OnDemandFile f = openOnDemand(test::dataPath(name), std::string("index-") + name);
    ASSERT_TRUE(f.model);
    auto indexed = indexedOoms(f.model->source());
    ASSERT_TRUE(indexed.ok()) << indexed.error().message;
    ASSERT_TRUE(indexed->has_value());
    auto counted = wholeTraceFactsByPass(f.model->source(), *f.pages->tables());
    ASSERT_TRUE(counted.ok());
    EXPECT_EQ((*indexed)->ooms, counted->ooms);
    ASSERT_EQ((*indexed)->first_oom.has_value(), counted->first_oom.has_value());
    if (!counted->first_oom) continue;
    EXPECT_EQ((*indexed)->first_oom->device, counted->first_oom->device);
    EXPECT_EQ((*indexed)->first_oom->seq, counted->first_oom->seq);
    auto post_mortem = oomPostMortem(*f.model, *f.pages->tables(), *(*indexed)->first_oom);
    ASSERT_TRUE(post_mortem.ok()) << post_mortem.error().message;
    const auto whole = buildTraceReport(std::make_shared<const TraceAnalysis>(f.whole));
    ASSERT_TRUE(whole->oom);
    EXPECT_EQ(post_mortem->report.requested, whole->oom->requested);
    EXPECT_EQ(post_mortem->report.index, whole->oom->index);
    expectSameTable(post_mortem->report.blocks, whole->oom->blocks);
  }
}

// The summaries' indexes give every fact the pass counts (each device's category peaks, the OOMs),
// from a file and from memory, so the plan against the count needs no pass; where the category
// peaks are missing (a file from before them) the facts come from the pass.
TEST(SummaryReport, TheIndexesGiveWhatThePassCounts) {
  for (const char* name : {"oom_mlp_snapshot_protocol2.pickle.gz", "h200_allocator_oom.pickle", "anatomy_adam_snapshot.pickle",
                           "anatomy_adam_profiler_trace.json.gz"}) {
    SCOPED_TRACE(name);
    OnDemandFile f = openOnDemand(test::dataPath(name), std::string("facts-") + name);
    ASSERT_TRUE(f.model);
    auto indexed = indexedFacts(f.model->source());
    ASSERT_TRUE(indexed.ok()) << indexed.error().message;
    ASSERT_TRUE(indexed->has_value());
    auto counted = wholeTraceFactsByPass(f.model->source(), *f.pages->tables());
    ASSERT_TRUE(counted.ok()) << counted.error().message;
    ASSERT_EQ((*indexed)->category_peaks.size(), counted->category_peaks.size());
    for (const auto& [device, peaks] : counted->category_peaks) {
      ASSERT_TRUE((*indexed)->category_peaks.count(device)) << device;
      EXPECT_EQ((*indexed)->category_peaks.at(device).peak, peaks.peak) << device;
      EXPECT_EQ((*indexed)->category_peaks.at(device).any_categorised, peaks.any_categorised) << device;
    }
    EXPECT_EQ((*indexed)->ooms, counted->ooms);
    auto memory = summary::MemorySource::build(*f.whole);
    ASSERT_TRUE(memory.ok());
    auto from_memory = indexedFacts(**memory);
    ASSERT_TRUE(from_memory.ok() && from_memory->has_value());
    for (const auto& [device, peaks] : counted->category_peaks)
      EXPECT_EQ((*from_memory)->category_peaks.at(device).peak, peaks.peak) << device;
  }
}

TEST(SummaryReport, ACancelledPassSaysSo) {
  OnDemandFile f = openOnDemand(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"), "oom-cancel");
  ASSERT_TRUE(f.model);
  std::atomic<bool> cancel{true};
  Progress progress({}, &cancel);
  auto facts = wholeTraceFactsByPass(f.model->source(), *f.pages->tables(), &progress);
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.error().message, "cancelled");
}

}  // namespace
}  // namespace sawtooth
