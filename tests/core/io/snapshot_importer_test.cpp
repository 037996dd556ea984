#include <gtest/gtest.h>

#include "core/analysis/trace_summary.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

// Every number compared here was computed by tests/tools/independent_reader.py from the same file.
void expectSummaryMatches(const std::string& fixture) {
  auto trace = loadTrace(test::dataPath(fixture));
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const auto expected = test::expectedInfo(fixture);
  const TraceSummary s = summarize(*trace);
  EXPECT_EQ(s.format, expected["format"].get<std::string>());
  EXPECT_EQ(s.events, expected["events"].get<size_t>());
  nlohmann::json actions = s.actions;
  EXPECT_EQ(actions, expected["actions"]);
  ASSERT_EQ(s.devices.size(), expected["devices"].size());
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const auto& d = s.devices[i];
    const auto& e = expected["devices"][i];
    SCOPED_TRACE(fixture + " device " + std::to_string(d.device));
    EXPECT_EQ(d.device, e["device"].get<int>());
    EXPECT_EQ(d.events, e["events"].get<size_t>());
    EXPECT_EQ(d.peak_allocated.value, e["peak_allocated_bytes"].get<int64_t>());
    EXPECT_EQ(d.peak_allocated.x_index, e["peak_allocated_event_index"].get<int64_t>());
    EXPECT_EQ(d.final_allocated, e["final_allocated_bytes"].get<int64_t>());
    EXPECT_EQ(d.peak_reserved.value, e["peak_reserved_bytes"].get<int64_t>());
    EXPECT_EQ(d.oom_events, e["oom_events"].get<size_t>());
  }
}

class SnapshotFixture : public ::testing::TestWithParam<const char*> {};
TEST_P(SnapshotFixture, MatchesTheIndependentReader) { expectSummaryMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(AllProtocols, SnapshotFixture,
                         ::testing::Values("anatomy_adam_snapshot.pickle", "anatomy_adam_snapshot_protocol0.pickle.gz",
                                           "anatomy_adam_snapshot_protocol1.pickle.gz",
                                           "anatomy_adam_snapshot_protocol2.pickle",
                                           "anatomy_adam_snapshot_protocol5.pickle",
                                           "oom_mlp_snapshot_protocol2.pickle.gz", "anatomy_adam_profiler_trace.json.gz"));

TEST(SnapshotImporter, AnatomyPeakIsPyTorchsMaxMemoryAllocated) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(trace.ok());
  const TraceSummary s = summarize(*trace);
  ASSERT_EQ(s.devices.size(), 1u);
  // torch.cuda.max_memory_allocated() during that recording (issue 2).
  EXPECT_EQ(s.devices[0].peak_allocated.value, 572522496);
  EXPECT_EQ(s.devices[0].peak_allocated.x_index, 105);
}

TEST(SnapshotImporter, KeepsFramesAnnotationsAndSettings) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(trace.ok());
  // The first event's innermost frame is the unwinder, its outermost the script's <module>.
  const uint32_t stack = trace->events.stack()[0];
  ASSERT_NE(stack, kNoStack);
  auto frames = trace->stacks.stack(stack);
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(trace->stacks.frame(frames.front()).name, "torch::unwind::unwind()");
  EXPECT_EQ(trace->stacks.frame(frames.back()).name, "<module>");
  EXPECT_EQ(trace->stacks.frame(frames.back()).line, 57);
  // 12 external annotations = 6 START/END pairs.
  ASSERT_EQ(trace->phases.size(), 6u);
  EXPECT_EQ(trace->phases[0].name, "Optimizer.zero_grad#Adam.zero_grad");
  EXPECT_EQ(trace->phases[0].kind, PhaseKind::Annotation);
  EXPECT_LT(trace->phases[0].begin_ns, trace->phases[0].end_ns);
  EXPECT_EQ(trace->meta.at("allocator.expandable_segments"), "false");
  EXPECT_EQ(trace->meta.at("allocator.max_split_size"), "-1");
  // The peak alloc happens inside the first optimizer step (Adam's state is created there).
  const auto s = summarize(*trace);
  const uint32_t phase = trace->events.phase()[s.devices[0].peak_allocated.event];
  ASSERT_NE(phase, kNoPhase);
  EXPECT_EQ(trace->phases[phase].name, "Optimizer.step#Adam.step");
}

TEST(SnapshotImporter, OomEventCarriesDeviceFree) {
  auto trace = loadTrace(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"));
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  size_t ooms = 0;
  for (size_t i = 0; i < trace->events.size(); ++i) {
    if (trace->events.action()[i] != Action::Oom) continue;
    ++ooms;
    EXPECT_EQ(trace->events.addr()[i], 149020606464u);  // device_free
    EXPECT_EQ(trace->events.sizes()[i], 67108864);
  }
  EXPECT_EQ(ooms, 1u);
}

TEST(SnapshotImporter, NonSnapshotPicklesAreExplained) {
  auto notDict = loadTraceFromBytes(std::string("\x80\x02K\x05.", 5), "five.pickle");
  ASSERT_FALSE(notDict.ok());
  EXPECT_EQ(notDict.error().message, "five.pickle: the pickle holds a int, not a PyTorch memory snapshot (a dict)");
  auto wrongDict = loadTraceFromBytes(std::string("\x80\x02}.", 4), "empty.pickle");
  ASSERT_FALSE(wrongDict.ok());
  EXPECT_NE(wrongDict.error().message.find("without 'segments' or 'device_traces'"), std::string::npos);
}

TEST(SnapshotImporter, UnreadableFilesNameTheFile) {
  auto missing = loadTrace("/nonexistent/rank3.pickle");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.rfind("/nonexistent/rank3.pickle: cannot open", 0), 0u);
  auto text = loadTraceFromBytes("hello world", "notes.txt");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find("notes.txt: not a PyTorch memory snapshot"), std::string::npos);
}

}  // namespace
}  // namespace sawtooth
