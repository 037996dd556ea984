#include <gtest/gtest.h>

#include "core/analysis/trace_analysis.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

TEST(TraceAnalysis, AnatomyPeakAndNearestEvent) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(trace.ok());
  TraceAnalysis a(std::make_shared<Trace>(std::move(*trace)));
  ASSERT_EQ(a.devices().size(), 1u);
  const SeriesAnalysis* allocated = a.devices()[0]->line(SeriesKind::Allocated);
  ASSERT_NE(allocated, nullptr);
  EXPECT_EQ(allocated->peak.value, 572522496);
  EXPECT_EQ(a.maxValue(), 576716800);  // the reserved peak
  EXPECT_EQ(a.xMin(false), 0);
  EXPECT_EQ(a.xMax(false), 351);
  const DeviceAnalysis& d = *a.devices()[0];
  EXPECT_EQ(d.nearestAllocatorPoint(105.2, false)->event, 105u);
  EXPECT_EQ(d.nearestAllocatorPoint(105.2, false)->point, 105u);
  EXPECT_EQ(d.nearestAllocatorPoint(-5, false)->event, 0u);
  EXPECT_EQ(d.nearestAllocatorPoint(1e9, false)->event, 351u);
  EXPECT_EQ(a.device(7), nullptr);
  EXPECT_EQ(a.xOfEvent(105, false), 105.0);
  EXPECT_EQ(a.xOfEvent(105, true), static_cast<double>(a.trace().events.tNs()[105]));
  // The whole-range LOD at 100 columns reaches exactly the peak.
  const auto& s = *allocated->series;
  auto points = allocated->lod.query(s.axis->xs(false), s.start, a.xMin(false), a.xMax(false), 100);
  double top = 0;
  for (const auto& p : points) top = std::max(top, p.y);
  EXPECT_EQ(top, 572522496.0);
}

}  // namespace
}  // namespace sawtooth

#include "core/analysis/frame_filter.h"

namespace sawtooth {
namespace {

TEST(FrameFilter, PrefersPythonFrames) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(trace.ok());
  const auto frames = interestingFrames(trace->stacks, trace->events.stack()[0], 3);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(trace->stacks.frame(frames[0]).name, "forward");
  EXPECT_EQ(trace->stacks.frame(frames[0]).line, 134);
}

TEST(FrameFilter, FallsBackToNonMachineryFrames) {
  StackTable t;
  std::vector<uint32_t> ids{t.internFrame("torch::unwind::unwind()", "??", 0), t.internFrame("??", "??", 0),
                            t.internFrame("at::native::matmul(...)", "LinearAlgebra.cpp", 0)};
  const uint32_t s = t.internStack(ids);
  const auto frames = interestingFrames(t, s, 5);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(t.frame(frames[0]).name, "at::native::matmul(...)");
}

TEST(FrameFilter, UserFramesComeBeforeTheLibrarys) {
  StackTable t;
  std::vector<uint32_t> ids{
      t.internFrame("linear", "/venv/lib/python3.11/site-packages/torch/nn/functional.py", 2500),
      t.internFrame("forward", "/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py", 125),
      t.internFrame("_call_impl", "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", 1747),
      t.internFrame("forward", "/home/me/model.py", 40),
      t.internFrame("train_step", "/home/me/train.py", 12)};
  const uint32_t s = t.internStack(ids);
  const auto frames = userFirstFrames(t, s, 3);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(t.frame(frames[0]).file, "/home/me/model.py");
  EXPECT_EQ(t.frame(frames[1]).file, "/home/me/train.py");
  EXPECT_EQ(t.frame(frames[2]).name, "linear");  // then the library's, innermost first
}

}  // namespace
}  // namespace sawtooth
