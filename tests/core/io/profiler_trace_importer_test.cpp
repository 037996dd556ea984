#include <gtest/gtest.h>

#include "core/analysis/series.h"
#include "core/analysis/trace_summary.h"
#include "core/io/file_bytes.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

TEST(ProfilerTrace, SeriesAreTheReportedTotals) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_profiler_trace.json.gz"));
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace->format, "torch-profiler");
  ASSERT_NE(trace->device(0), nullptr);
  EXPECT_EQ(trace->device(0)->name, "NVIDIA H200");
  EXPECT_EQ(trace->device(0)->total_bytes, 150109880320);
  const DeviceSeries s = buildDeviceSeries(*trace, 0);
  ASSERT_EQ(s.allocated.size(), 234u);
  // Events are in time order, and the start is the first event's total minus its own bytes.
  for (size_t i = 1; i < s.allocator->event.size(); ++i)
    ASSERT_LE(trace->events.tNs()[s.allocator->event[i - 1]], trace->events.tNs()[s.allocator->event[i]]);
  const uint64_t first = s.allocator->event[0];
  EXPECT_EQ(s.allocated.start,
            s.allocated.value[0] - allocatedSign(trace->events.action()[first]) * trace->events.sizes()[first]);
  EXPECT_EQ(s.reserved.value[0], 576716800);
  // Summing the events gives the same series as the reported totals.
  int64_t sum = s.allocated.start;
  for (size_t i = 0; i < s.allocator->event.size(); ++i) {
    const uint64_t e = s.allocator->event[i];
    sum += allocatedSign(trace->events.action()[e]) * trace->events.sizes()[e];
    ASSERT_EQ(sum, s.allocated.value[i]) << i;
  }
}

TEST(ProfilerTrace, UserAnnotationsBecomePhases) {
  auto trace = loadTrace(test::dataPath("anatomy_adam_profiler_trace.json.gz"));
  ASSERT_TRUE(trace.ok());
  ASSERT_FALSE(trace->phases.empty());
  bool saw_step = false;
  for (const auto& p : trace->phases) saw_step |= p.name.find("Optimizer.step") != std::string::npos;
  EXPECT_TRUE(saw_step);
}

TEST(ProfilerTrace, OutOfMemoryEventsAreOomActions) {
  const std::string json = R"({"traceEvents":[
    {"ph":"i","name":"[memory]","ts":10.0,"args":{"Bytes":1024,"Addr":7,"Device Id":0,"Device Type":1,"Total Allocated":1024,"Total Reserved":2097152}},
    {"ph":"i","name":"[OutOfMemory]","ts":11.5,"args":{"Bytes":99999999,"Device Id":0,"Device Type":1,"Total Allocated":1024,"Total Reserved":2097152}},
    {"ph":"i","name":"[memory]","ts":12.0,"args":{"Bytes":-1024,"Addr":7,"Device Id":0,"Device Type":1,"Total Allocated":0,"Total Reserved":2097152}}
  ]})";
  auto trace = loadTraceFromBytes(json, "oom.json");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const TraceSummary s = summarize(*trace);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].oom_events, 1u);
  EXPECT_EQ(s.devices[0].peak_allocated.value, 1024);
  EXPECT_EQ(s.devices[0].final_allocated, 0);
  EXPECT_EQ(trace->events.tNs()[1], 1500);
}

std::string memoryEvent(const std::string& bytes, const std::string& ts = "1.0") {
  return R"({"traceEvents": [{"ph": "i", "name": "[memory]", "ts": )" + ts +
         R"(, "args": {"Addr": 4096, "Bytes": )" + bytes + R"(, "Device Id": 0, "Device Type": 1}}]})";
}

// Numbers that do not fit were read as 0, NaN and Infinity as numbers, 1e300 as -2^63 (then
// blamed on a free): now each is refused with the event and what it holds.
TEST(ProfilerTrace, NumbersThatAreNotWhatTheFieldHoldsAreRefusedWithTheirPlace) {
  for (const char* bytes : {"1e300", "1180591620717411303424", "512.5", "\"NaN\"", "\"Infinity\"", "true", "-9223372036854775808"}) {
    auto trace = loadTraceFromBytes(memoryEvent(bytes), "t.json");
    ASSERT_FALSE(trace.ok()) << bytes;
    EXPECT_NE(trace.error().message.find(std::string("traceEvents[0] ([memory]): args.Bytes is ") + bytes +
                                         ", not a whole number of bytes within 64 bits"),
              std::string::npos)
        << trace.error().message;
  }
  for (const char* ts : {"NaN", "\"NaN\"", "\"-Infinity\"", "\"1.0x\""}) {
    auto trace = loadTraceFromBytes(memoryEvent("512", ts), "t.json");
    ASSERT_FALSE(trace.ok()) << ts;
    EXPECT_NE(trace.error().message.find(std::string("ts is ") + ts + ", not a finite number of microseconds"),
              std::string::npos)
        << trace.error().message;
  }
  // What writers do write: integers, whole numbers written as doubles, quoted numbers.
  for (const char* bytes : {"512", "512.0", "\"512\"", "5.12e2"}) {
    auto trace = loadTraceFromBytes(memoryEvent(bytes), "t.json");
    ASSERT_TRUE(trace.ok()) << bytes << ": " << trace.error().message;
    ASSERT_EQ(trace->events.size(), 1u);
    EXPECT_EQ(trace->events.sizes()[0], 512) << bytes;
  }
}

TEST(ProfilerTrace, BadJsonIsExplained) {
  auto notTrace = loadTraceFromBytes("[1,2]", "numbers.json");
  ASSERT_FALSE(notTrace.ok());
  EXPECT_NE(notTrace.error().message.find("numbers.json: trace event 0 is not a JSON object"), std::string::npos)
      << notTrace.error().message;
  // An array of arrays is read as a torch.profiler memory timeline, and explained as one.
  auto notTimeline = loadTraceFromBytes("[[1,2],[3]]", "timeline.json");
  ASSERT_FALSE(notTimeline.ok());
  EXPECT_NE(notTimeline.error().message.find("timeline.json: event 0 is [1,2]: a raw memory timeline holds"),
            std::string::npos)
      << notTimeline.error().message;
  auto broken = loadTraceFromBytes(R"({"traceEvents":[{"name":"[memory]",)", "cut.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().message.rfind("cut.json: ", 0), 0u);
  auto noMemory = loadTraceFromBytes(R"({"traceEvents":[]})", "plain.json");
  ASSERT_FALSE(noMemory.ok());
  EXPECT_NE(noMemory.error().message.find("profile_memory=True"), std::string::npos);
}

TEST(ProfilerTrace, EveryTruncationIsAnErrorOrAPartialTrace) {
  auto full = readMaybeGzip(test::dataPath("anatomy_adam_profiler_trace.json.gz"));
  ASSERT_TRUE(full.ok());
  for (size_t n = 0; n < full->size(); n += 211) {
    auto trace = loadTraceFromBytes(full->substr(0, n), "cut.json");
    EXPECT_FALSE(trace.ok()) << n;
  }
}

}  // namespace
}  // namespace sawtooth
