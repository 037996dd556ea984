// The timeline's other data: where phases lie on each axis, what the hover says about an event,
// and which frame the events table names.

#include <gtest/gtest.h>

#include <sstream>

#include "core/analysis/event_details.h"
#include "core/analysis/frame_filter.h"
#include "core/analysis/phase_spans.h"
#include "core/io/csv_export.h"
#include "core/io/trace_loader.h"
#include "tests/core/analysis_test_data.h"
#include "tests/core/module_trace.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

TEST(PhaseSpans, OnTheIndexAxisOfTheDeviceDrawn) {
  // The H200 samples have a CPU device with a dozen events beside cuda:0's thousands: phases put on
  // the CPU's count all landed at its last event (only a sliver of "setup" was drawn).
  auto a = test::loadAnalysis(test::samplePath("anatomy.sawtooth"));
  const auto gpu = phaseSpans(*a, 0, false);
  ASSERT_EQ(gpu.size(), a->trace().phases.size());
  const double last = a->xMax(false);
  size_t spread = 0;
  for (const PhaseSpan& s : gpu) {
    EXPECT_LE(s.x0, s.x1);
    if (s.x1 - s.x0 >= 1 && s.x0 > 0.01 * last) ++spread;
  }
  EXPECT_GT(spread, gpu.size() / 2) << "phases across cuda:0's allocation events";
  EXPECT_TRUE(std::is_sorted(gpu.begin(), gpu.end(), [](const PhaseSpan& x, const PhaseSpan& y) { return x.x0 < y.x0; }));
  const auto by_time = phaseSpans(*a, 0, true);
  EXPECT_EQ(by_time.front().x0, static_cast<double>(a->trace().phases[by_time.front().phase].begin_ns));
  EXPECT_TRUE(phaseSpans(*a, 42, false).empty());
}

TEST(EventDetails, WhatTheHoverShows) {
  auto a = test::loadAnalysis(test::dataPath("anatomy_adam_snapshot.pickle"));
  const auto d = eventDetails(*a, 105);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->event.action, Action::Alloc);
  EXPECT_EQ(d->index, 105);
  EXPECT_EQ(d->allocated_after, 572522496);
  EXPECT_EQ(d->phase, "Optimizer.step#Adam.step");
  EXPECT_FALSE(d->frames.empty());
  EXPECT_LE(d->frames.size(), 5u);
  // The point the hover already found is taken as it is; a wrong one is searched again.
  EXPECT_EQ(eventDetails(*a, 105, 105)->index, 105);
  EXPECT_EQ(eventDetails(*a, 105, 3)->index, 105);
  EXPECT_FALSE(eventDetails(*a, 100000));
}

TEST(EventDetails, TheModuleAndPassThatMadeTheEvent) {
  const TraceAnalysis a(std::make_shared<const Trace>(test::moduleTrace()));
  const auto temporary = eventDetails(a, 12);  // t = 68: a temporary of "0"'s backward
  ASSERT_TRUE(temporary);
  EXPECT_EQ(temporary->module, "Net.0");
  EXPECT_EQ(temporary->pass, "backward");
  const auto loss = eventDetails(a, 7);
  ASSERT_TRUE(loss);
  EXPECT_EQ(loss->module, "(outside modules)");
  EXPECT_EQ(loss->pass, "");
  // A trace without modules says nothing of them.
  auto snapshot = test::loadAnalysis(test::dataPath("anatomy_adam_snapshot.pickle"));
  EXPECT_EQ(eventDetails(*snapshot, 105)->module, "");
}

TEST(TopFrame, NeverTheUnwinder) {
  // A C++-API snapshot's stacks begin with the unwinder and the allocator.
  StackTable t;
  std::vector<uint32_t> ids{t.internFrame("torch::unwind::unwind()", "??", 0),
                            t.internFrame("torch::CapturedTraceback::gather(bool, bool, bool)", "??", 0),
                            t.internFrame("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc",
                                          "/src/c10/cuda/CUDACachingAllocator.cpp", 0),
                            t.internFrame("at::native::empty_cuda(...)", "/src/aten/Empty.cpp", 31)};
  const uint32_t s = t.internStack(ids);
  EXPECT_EQ(topFrameText(t, s), "at::native::empty_cuda(...) (Empty.cpp:31)");
  std::vector<uint32_t> only{ids[0], ids[1]};
  EXPECT_EQ(topFrameText(t, t.internStack(only)), "");
  EXPECT_EQ(topFrameText(t, kNoStack), "");
  auto snapshot = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  EXPECT_EQ(topFrameText(snapshot->stacks, snapshot->events.stack()[0]), "forward (linear.py:134)");
}

TEST(TableCsv, QuotesOnlyWhatCsvNeedsAndWritesRawNumbers) {
  Table t;
  t.columns = {{"name", Unit::Text}, {"size", Unit::Bytes}, {"t", Unit::Nanoseconds}};
  t.rows = {{"plain", 42.0, 474820.0}, {"a,b", Cell(), 1.5}, {"say \"hi\"\ntwice", 1e15, Cell()}};
  std::ostringstream out;
  writeTableCsv(t, out);
  EXPECT_EQ(out.str(),
            "name,size (bytes),t (ns)\nplain,42,474820\n\"a,b\",,1.5\n\"say \"\"hi\"\"\ntwice\",1000000000000000,\n");
  const Status st = exportTableCsv(t, "/nonexistent-dir/t.csv");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("/nonexistent-dir/t.csv"), std::string::npos);
}

TEST(EventsCsv, TheTablesRowsInItsOrder) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  std::vector<uint32_t> rows{105, 0};
  std::ostringstream out;
  writeEventsCsv(*trace, out, &rows);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("seq,t_ns,device,source,action,addr,size_bytes,stream,category,phase,run,top_frame\n105,", 0), 0u) << text;
  EXPECT_NE(text.find("\n0,"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_NE(text.find("forward (linear.py:134)"), std::string::npos);
  std::vector<uint32_t> none;
  std::ostringstream empty;
  writeEventsCsv(*trace, empty, &none);
  const std::string header_only = empty.str();
  EXPECT_EQ(std::count(header_only.begin(), header_only.end(), '\n'), 1);
}

}  // namespace
}  // namespace sawtooth
