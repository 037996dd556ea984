// Two traces' timelines over each other from their summaries (overlay_comparison.h): every frame,
// the overview and the differences table are those of the two traces merged and read whole, for
// each alignment, with a side in memory or in a file read on demand.

#include <gtest/gtest.h>

#include "core/analysis/overlay_comparison.h"
#include "core/analysis/summary_source.h"
#include "core/io/native_format.h"
#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"
#include "core/io/trace_loader.h"
#include "tests/core/analysis_test_data.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

struct Side {
  std::shared_ptr<const TraceAnalysis> analysis;
  OverlaySide overlay;
};

Side inMemory(const std::string& path, const std::string& name) {
  Side s;
  s.analysis = test::loadAnalysis(path);
  auto source = summary::MemorySource::build(s.analysis->trace());
  EXPECT_TRUE(source.ok());
  s.overlay.source = std::shared_ptr<summary::SummarySource>(std::move(*source));
  s.overlay.tables = s.analysis->sharedTrace();
  s.overlay.name = name;
  s.overlay.steps = findStepStarts(s.analysis->trace());
  return s;
}

// The same trace written as a .sawtooth and read from its summaries, as a file past the budget is.
Side onDemand(const std::string& path, const std::string& name) {
  Side s = inMemory(path, name);
  const std::string file = test::tempPath("overlay-" + name + ".sawtooth");
  EXPECT_TRUE(writeNative(s.analysis->trace(), file).ok());
  auto place = summariesOf(file);
  EXPECT_TRUE(place.ok()) << place.error().message;
  auto source = native::FileSummarySource::open(*place);
  EXPECT_TRUE(source.ok()) << source.error().message;
  s.overlay.source = std::shared_ptr<summary::SummarySource>(std::move(*source));
  s.overlay.steps.reset();  // from the file's own steps
  return s;
}

void expectSameFrame(const TimelineFrame& got, const TimelineFrame& want, const std::string& what) {
  ASSERT_EQ(got.lines.size(), want.lines.size()) << what;
  for (const TimelineFrame::Line& w : want.lines) {
    auto g = std::find_if(got.lines.begin(), got.lines.end(),
                          [&](const TimelineFrame::Line& l) { return l.device == w.device && l.kind == w.kind; });
    ASSERT_NE(g, got.lines.end()) << what << ": device " << w.device;
    ASSERT_EQ(g->points.size(), w.points.size()) << what << ": device " << w.device << " line " << name(w.kind);
    for (size_t i = 0; i < w.points.size(); ++i) {
      EXPECT_EQ(g->points[i].x, w.points[i].x) << what << ": device " << w.device << " point " << i;
      EXPECT_EQ(g->points[i].y, w.points[i].y) << what << ": device " << w.device << " point " << i;
    }
  }
  ASSERT_EQ(got.stacks.size(), want.stacks.size()) << what;
  for (size_t k = 0; k < want.stacks.size(); ++k) {
    EXPECT_EQ(got.stacks[k].device, want.stacks[k].device) << what;
    EXPECT_EQ(got.stacks[k].columns.x, want.stacks[k].columns.x) << what;
    EXPECT_EQ(got.stacks[k].columns.top, want.stacks[k].columns.top) << what;
  }
}

void expectTheMergedTraces(const Side& a, const Side& b, Alignment alignment) {
  const std::string what = std::string(alignment == Alignment::EventIndex ? "by event"
                                       : alignment == Alignment::Time     ? "in time"
                                                                          : "by step");
  auto overlay = overlayTraces(a.overlay, b.overlay, alignment);
  ASSERT_TRUE(overlay) << overlay.error().message;
  auto merged = compareTraces(*a.analysis, a.overlay.name, *b.analysis, b.overlay.name, alignment);
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(overlay->by_time, merged->by_time);
  // The table is compareTraces' own.
  ASSERT_EQ(overlay->differences.rowCount(), merged->differences.rowCount()) << what;
  for (size_t r = 0; r < merged->differences.rowCount(); ++r)
    for (size_t c = 0; c < merged->differences.columns.size(); ++c)
      EXPECT_EQ(overlay->differences.at(r, c).value, merged->differences.at(r, c).value) << what << " row " << r;
  // The overview: the merged trace's devices, names and peaks.
  const Trace& m = merged->merged->trace();
  ASSERT_EQ(overlay->overview.devices.size(), merged->merged->devices().size()) << what;
  for (const TimelineOverview::Device& d : overlay->overview.devices) {
    const DeviceAnalysis* da = merged->merged->device(d.device);
    ASSERT_TRUE(da) << what << ": device " << d.device;
    EXPECT_EQ(d.name, m.deviceName(d.device));
    EXPECT_EQ(d.peak, da->line(SeriesKind::Allocated)->peak.value) << what << ": " << d.name;
    EXPECT_EQ(d.peak_reserved, da->line(SeriesKind::Reserved)->peak.value) << what << ": " << d.name;
  }
  // Every frame: the merged trace's, drawn from its own summaries.
  auto source = summary::MemorySource::build(m);
  ASSERT_TRUE(source.ok());
  TimelineModel whole(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  ASSERT_TRUE(whole.refresh().ok());
  const bool by_time = overlay->by_time;
  const double lo = whole.xMin(by_time), hi = whole.xMax(by_time), span = hi - lo;
  EXPECT_EQ(overlay->model->xMin(by_time), lo) << what;
  EXPECT_EQ(overlay->model->xMax(by_time), hi) << what;
  const std::pair<double, double> windows[] = {{lo, hi}, {lo + span * 0.42, lo + span * 0.43}, {lo + span * 0.5, lo + span * 0.5001}};
  for (const auto& [x0, x1] : windows) {
    TimelineRequest request;
    request.by_time = by_time;
    request.x0 = x0;
    request.x1 = x1;
    request.columns = 800;
    request.stacked = true;
    request.bands = false;
    auto got = frameOf(*overlay->model, request);
    ASSERT_TRUE(got) << got.error().message;
    auto want = frameOf(whole, request);
    ASSERT_TRUE(want) << want.error().message;
    expectSameFrame(*got, *want, what + " [" + std::to_string(x0) + ", " + std::to_string(x1) + ")");
  }
}

TEST(Overlay, DrawsWhatTheTwoTracesMergedDrawForEachAlignment) {
  const Side a = inMemory(test::samplePath("anatomy.sawtooth"), "anatomy");
  const Side b = inMemory(test::dataPath("anatomy_adam_snapshot.pickle"), "snapshot");
  for (Alignment alignment : {Alignment::EventIndex, Alignment::Time, Alignment::Step}) expectTheMergedTraces(a, b, alignment);
  // Two recordings with steps: B's stretched onto A's.
  const Side c = inMemory(test::samplePath("checkpointing.sawtooth"), "checkpointing");
  expectTheMergedTraces(a, c, Alignment::Step);
  auto overlay = overlayTraces(a.overlay, c.overlay, Alignment::Step);
  ASSERT_TRUE(overlay);
  EXPECT_NE(overlay->note.find("aligned by step"), std::string::npos) << overlay->note;
}

TEST(Overlay, ASideReadOnDemandFromItsFile) {
  // Both sides from their files' summaries, steps too: what the app overlays for two big files.
  const Side a = onDemand(test::samplePath("anatomy.sawtooth"), "anatomy");
  const Side c = onDemand(test::samplePath("checkpointing.sawtooth"), "checkpointing");
  for (Alignment alignment : {Alignment::EventIndex, Alignment::Time, Alignment::Step}) expectTheMergedTraces(a, c, alignment);
  auto overlay = overlayTraces(a.overlay, c.overlay, Alignment::Step);
  ASSERT_TRUE(overlay);
  EXPECT_NE(overlay->note.find("summaries' steps"), std::string::npos) << overlay->note;
  // One side in memory, the other on demand.
  const Side b = inMemory(test::dataPath("anatomy_adam_snapshot.pickle"), "snapshot");
  expectTheMergedTraces(b, a, Alignment::EventIndex);
}

TEST(Overlay, StepsFromTheSummariesAreTheTracesSteps) {
  const Side a = onDemand(test::samplePath("checkpointing.sawtooth"), "checkpointing-steps");
  TimelineModel model(a.overlay.source);
  ASSERT_TRUE(model.refresh().ok());
  auto steps = stepStartsFromSummaries(model);
  ASSERT_TRUE(steps) << steps.error().message;
  EXPECT_EQ(steps->t_ns, findStepStarts(a.analysis->trace()).t_ns);
}

TEST(Overlay, AskedForWhatOnlyATracesOwnTabReadsItSaysSo) {
  const Side a = inMemory(test::samplePath("anatomy.sawtooth"), "anatomy");
  auto source = summary::OverlaySource::make(a.overlay.source, a.overlay.source);
  ASSERT_TRUE(source);
  auto checkpoint = (*source)->checkpointAtOrBefore(0, 10);
  ASSERT_FALSE(checkpoint);
  EXPECT_NE(checkpoint.error().message.find("own tab"), std::string::npos);
  EXPECT_FALSE((*source)->phaseName(0));
  EXPECT_FALSE(summary::OverlaySource::make(nullptr, a.overlay.source));
}

TEST(StepAlignment, TheInverseTakesATimeBackOntoBsClock) {
  const StepWarp warp({100, 200, 400}, {1000, 1100, 1300});
  for (int64_t t : {900, 1000, 1050, 1100, 1200, 1300, 1400}) EXPECT_EQ(warp.inverse(warp(t)), t) << t;
  const StepWarp squeezed({0, 100}, {0, 50, 70});
  for (int64_t t : {-10, 0, 25, 50, 60, 70, 90}) EXPECT_NEAR(static_cast<double>(squeezed.inverse(squeezed(t))), t, 1) << t;
  // The ends of the clock stay where they are (no overflow in a window asked for without bounds).
  EXPECT_EQ(warp(INT64_MAX), INT64_MAX);
  EXPECT_EQ(warp(INT64_MIN), INT64_MIN);
  EXPECT_EQ(warp.inverse(INT64_MAX - 5), INT64_MAX);
  EXPECT_EQ(StepWarp()(123), 123);
  EXPECT_EQ(StepWarp().inverse(123), 123);
}

}  // namespace
}  // namespace sawtooth
