// The built-in workloads record their own modules (issue 23): at CPU scale, through the real
// capture session and file, each module's parameters are the model's own, the modules' bytes sum
// to the peak, backward's allocations belong to the modules whose forward made them, and a
// checkpointed block's recomputation to the block.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>

#include "capture/torch/capture_session.h"
#include "core/analysis/module_memory.h"
#include "core/analysis/series.h"
#include "core/io/trace_loader.h"
#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {
namespace {

struct NoProgress final : ProgressSink {
  void report(const std::string&, const std::string&, int64_t, int64_t, double, const std::string&) override {}
};

Trace recordOnCpu(const std::string& workload, const std::vector<std::pair<std::string, std::string>>& overrides) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("sawtooth-modules-" + workload + ".sawtooth")).string();
  auto claim = OutputClaim::claim(path, OutputClaim::Existing::Replace);
  EXPECT_TRUE(claim) << claim.error().message;
  capture::SessionOptions options;
  auto session = capture::CaptureSession::start(options, std::move(*claim));
  EXPECT_TRUE(session) << session.error().message;
  const Workload* w = findWorkload(workload);
  auto params = resolveParameters(w->spec, false, overrides);
  EXPECT_TRUE(params) << params.error().message;
  NoProgress progress;
  std::atomic<bool> stop{false};
  WorkloadContext ctx{**session, *params, false, 0, progress, stop};
  w->run(ctx);
  EXPECT_TRUE((*session)->finish());
  auto trace = loadTrace(path);
  EXPECT_TRUE(trace) << trace.error().message;
  std::filesystem::remove(path);
  return std::move(*trace);
}

int64_t peakOf(const Trace& trace, int16_t device) {
  const DeviceSeries s = buildDeviceSeries(trace, device);
  int64_t peak = s.allocated.start;
  for (int64_t v : s.allocated.value) peak = std::max(peak, v);
  return peak;
}

// Bytes of the allocations of `pass` each module made.
std::map<std::string, int64_t> allocatedIn(const Trace& trace, Pass pass) {
  std::map<std::string, int64_t> out;
  const EventStore& e = trace.events;
  for (size_t i = 0; i < e.size(); ++i)
    if (e.action()[i] == Action::Alloc && e.source()[i] == Source::Allocator && e.pass(i) == pass)
      out[e.module(i) < trace.modules.size() ? trace.modules.fullName(e.module(i)) : std::string(kOutsideModules)] +=
          e.sizes()[i];
  return out;
}

TEST(WorkloadModules, AnatomyRecordsItsModulesAndTheirBytesSumToThePeak) {
  const int64_t layers = 3, width = 64, batch = 16;
  const Trace trace = recordOnCpu("anatomy", {{"layers", std::to_string(layers)}, {"width", std::to_string(width)},
                                              {"batch", std::to_string(batch)}, {"steps", "2"}, {"timed_steps", "0"}});
  // Sequential with its children as named_modules() names them, each Linear with its own weight.
  ASSERT_EQ(trace.modules.size(), static_cast<size_t>(1 + 2 * layers));
  EXPECT_EQ(trace.modules.fullName(0), "Sequential");
  EXPECT_EQ(trace.modules.modules[0].class_name, "Sequential");
  const int64_t weight = width * width * 4;
  for (int64_t i = 0; i < 2 * layers; ++i) {
    const uint32_t m = trace.modules.find("Sequential." + std::to_string(i));
    ASSERT_NE(m, kNoModule) << i;
    EXPECT_EQ(trace.modules.modules[m].class_name, i % 2 ? "ReLU" : "Linear");
    EXPECT_EQ(trace.modules.modules[m].parameter_bytes, i % 2 ? 0 : weight);
  }

  const ModuleMemory at_peak = moduleMemoryAt(trace, -1);
  ASSERT_TRUE(at_peak.unavailable.empty()) << at_peak.unavailable;
  EXPECT_EQ(at_peak.live_bytes, peakOf(trace, -1));
  int64_t sum = 0, in_modules = 0;
  for (const ModuleRow& row : at_peak.rows) {
    sum += row.self.total();
    if (row.module != kNoModule) in_modules += row.self.total();
    if (row.class_name == "Linear") {
      EXPECT_EQ(row.self[Category::Parameter], weight) << row.name;  // the model's own, to the byte
      EXPECT_EQ(row.forward.calls, 2) << row.name;
    }
    if (row.module == kNoModule) EXPECT_EQ(row.self[Category::Parameter], 0);
  }
  EXPECT_EQ(sum, at_peak.live_bytes);
  EXPECT_GT(in_modules, 3 * layers * weight);  // parameters, Adam's state, activations: in the modules

  // Backward: each ReLU's gradient of its input (batch × width floats) in the ReLU whose forward
  // made the node, each Linear's (but the first's: its input needs none) in its Linear.
  const auto backward = allocatedIn(trace, Pass::Backward);
  for (int64_t i = 1; i < 2 * layers; ++i) {
    const auto it = backward.find("Sequential." + std::to_string(i));
    ASSERT_NE(it, backward.end()) << i;
    EXPECT_GE(it->second, 2 * batch * width * 4) << i;  // two steps
  }
  const auto forward = allocatedIn(trace, Pass::Forward);
  EXPECT_GE(forward.at("Sequential.0"), 2 * batch * width * 4);
}

TEST(WorkloadModules, CheckpointedBlocksRecomputeInTheirOwnModules) {
  const Trace trace = recordOnCpu("checkpointing", {{"blocks", "2"}, {"width", "32"}, {"rows", "16"}, {"warmup", "0"},
                                                    {"repeats", "1"}, {"variants", "every_2nd_reentrant"}});
  ASSERT_NE(trace.modules.find("Blocks.0.fc1"), kNoModule);
  EXPECT_EQ(trace.modules.modules[trace.modules.find("Blocks.0.fc1")].parameter_bytes, (32 * 32 + 32) * 4);
  const auto recompute = allocatedIn(trace, Pass::Recompute);
  EXPECT_GT(recompute.count("Blocks.0.fc1") + recompute.count("Blocks.0"), 0u);
  EXPECT_EQ(recompute.count("Blocks.1.fc1"), 0u);  // only block 0 is checkpointed
  const auto backward = allocatedIn(trace, Pass::Backward);
  EXPECT_GT(backward.count("Blocks.1.fc2"), 0u);
  const ModuleMemory at_peak = moduleMemoryAt(trace, -1);
  int64_t sum = 0;
  for (const ModuleRow& row : at_peak.rows) sum += row.self.total();
  EXPECT_EQ(sum, peakOf(trace, -1));
}

}  // namespace
}  // namespace sawtooth::workloads
