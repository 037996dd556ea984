// Two traces compared through the one merge: both sides' series, stacks and kernels kept, aligned by
// event index, time or step.

#include <gtest/gtest.h>

#include "core/analysis/comparison.h"
#include "core/analysis/step_alignment.h"
#include "core/io/trace_loader.h"
#include "tests/core/analysis_test_data.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

TEST(Comparison, BothSidesOnOneTimelineWithTheirStacks) {
  auto a = test::loadAnalysis(test::samplePath("anatomy.sawtooth"));
  auto b = test::loadAnalysis(test::dataPath("anatomy_adam_snapshot.pickle"));
  auto c = compareTraces(*a, "recording", *b, "snapshot", Alignment::EventIndex);
  ASSERT_TRUE(c) << c.error().message;
  const Trace& m = c->merged->trace();
  EXPECT_EQ(m.events.size(), a->trace().events.size() + b->trace().events.size());
  EXPECT_TRUE(c->merged->device(0));
  ASSERT_TRUE(c->merged->device(kCompareOffset));
  EXPECT_EQ(m.deviceName(kCompareOffset), "B cuda:0");
  EXPECT_EQ(m.deviceName(0), "A cuda:0");
  EXPECT_EQ(c->merged->device(kCompareOffset)->line(SeriesKind::Allocated)->peak.value, 572522496);
  // B's stacks survive the merge (the comparison's own merge once dropped them).
  size_t with_stack = 0;
  for (size_t i = 0; i < m.events.size(); ++i)
    if (m.events.device()[i] == kCompareOffset && m.events.stack()[i] != kNoStack) ++with_stack;
  EXPECT_GT(with_stack, 0u);
  EXPECT_EQ(m.kernels.size(), a->trace().kernels.size() + b->trace().kernels.size());
  EXPECT_FALSE(c->by_time);
  ASSERT_GE(c->differences.rowCount(), 2u);
  EXPECT_EQ(*c->differences.at(0, 0).text(), "cuda:0 peak allocated");
  EXPECT_EQ(*c->differences.at(0, 2).number(), 572522496.0);
}

TEST(Comparison, TimeAndStepAlignment) {
  auto a = test::loadAnalysis(test::samplePath("anatomy.sawtooth"));
  auto time = compareTraces(*a, "a", *a, "b", Alignment::Time);
  ASSERT_TRUE(time);
  EXPECT_TRUE(time->by_time);
  auto step = compareTraces(*a, "a", *a, "b", Alignment::Step);
  ASSERT_TRUE(step);
  EXPECT_NE(step->note.find("aligned by step"), std::string::npos) << step->note;
  // The same trace on both sides: step alignment maps B onto A exactly.
  const Trace& m = step->merged->trace();
  std::vector<int64_t> ta, tb;
  for (size_t i = 0; i < m.events.size(); ++i) (m.events.device()[i] >= kCompareOffset + kCpuDevice ? tb : ta).push_back(m.events.tNs()[i]);
  EXPECT_EQ(ta, tb);
  // A trace without steps falls back to time, and says so.
  auto snapshot = test::loadAnalysis(test::dataPath("anatomy_adam_profiler_trace.json.gz"));
  auto fallback = compareTraces(*a, "a", *snapshot, "b", Alignment::Step);
  ASSERT_TRUE(fallback);
  if (findStepStarts(snapshot->trace()).source.empty()) {
    EXPECT_NE(fallback->note.find("no steps found"), std::string::npos) << fallback->note;
  }
}

TEST(StepAlignment, StretchesBsStepsOntoAs) {
  const auto warp = stepWarp({100, 200, 400}, {1000, 1100, 1300});
  EXPECT_EQ(warp(1000), 100);
  EXPECT_EQ(warp(1050), 150);
  EXPECT_EQ(warp(1200), 300);  // halfway through step 1: halfway through A's step 1
  EXPECT_EQ(warp(1300), 400);
  EXPECT_EQ(warp(1400), 500);  // after the last common step: shifted
  EXPECT_EQ(warp(900), 0);     // before the first: shifted
  const auto uneven = stepWarp({0, 100}, {0, 50, 70});
  EXPECT_EQ(uneven(25), 50);
  EXPECT_EQ(uneven(60), 110);
  EXPECT_EQ(stepWarp({}, {1, 2})(5), 5);
}

TEST(StepAlignment, FindsTheRecordingsForwardPhases) {
  auto a = test::loadAnalysis(test::samplePath("anatomy.sawtooth"));
  const StepStarts s = findStepStarts(a->trace());
  EXPECT_EQ(s.source, "forward phases");
  EXPECT_GE(s.t_ns.size(), 3u);
  EXPECT_TRUE(std::is_sorted(s.t_ns.begin(), s.t_ns.end()));
  Trace annotated;
  for (int k = 0; k < 3; ++k) annotated.phases.push_back(Phase{"Optimizer.step#Adam.step", PhaseKind::Annotation, kAllDevices, kNoRun, 100 * k + 80, 100 * k + 90});
  const StepStarts o = findStepStarts(annotated);
  EXPECT_EQ(o.source, "optimizer steps");
  EXPECT_EQ(o.t_ns, (std::vector<int64_t>{0, 90, 190, 290}));
}

}  // namespace
}  // namespace sawtooth
