// A recording whose allocations carry no call stacks says why wherever call sites are shown (info,
// diff, Live bytes), instead of a bare "(no stack)" (issue 27, item 6).

#include "core/analysis/missing_stacks.h"

#include <gtest/gtest.h>

#include "core/analysis/live_bytes.h"
#include "core/analysis/trace_diff.h"
#include "core/analysis/trace_summary.h"
#include "core/io/summary_json.h"

namespace sawtooth {
namespace {

constexpr const char* kWhy = "CPU allocations are recorded without stacks: the profiler's memory events carry none";

Trace allocations(bool with_frames) {
  Trace trace;
  trace.deviceInfo(0);
  const uint32_t stack = with_frames ? trace.stacks.internStack(std::vector<uint32_t>{
                                           trace.stacks.internFrame("forward", "/home/ann/model.py", 42)})
                                     : kNoStack;
  for (int64_t i = 0; i < 3; ++i) {
    Event e;
    e.t_ns = i;
    e.addr = 0x1000 + static_cast<uint64_t>(i) * 0x1000;
    e.size = 4096;
    e.action = Action::Alloc;
    e.stack = stack;
    trace.events.push(e);
  }
  return trace;
}

Trace cpuRecording() {
  Trace trace = allocations(false);
  trace.meta["stacks"] = "none";
  trace.meta["stacks_note"] = kWhy;
  return trace;
}

bool anyLineHas(const TraceDiff& d, const std::string& text) {
  for (const std::string& line : d.change.lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

TEST(MissingStacks, TheRecordersReasonOrNothing) {
  EXPECT_EQ(missingStacksReason(cpuRecording()), kWhy);
  Trace asked_none = allocations(false);
  asked_none.meta["stacks"] = "none";
  EXPECT_EQ(missingStacksReason(asked_none), "recorded with --stacks none");
  // A file that does not say (another tool's), and one with frames, get no note.
  EXPECT_EQ(missingStacksReason(allocations(false)), "");
  Trace with_frames = allocations(true);
  with_frames.meta["stacks"] = "none";  // a file that says none but holds frames: the frames win
  EXPECT_EQ(missingStacksReason(with_frames), "");
}

TEST(MissingStacks, InfoSaysWhy) {
  const Trace trace = cpuRecording();
  const std::string text = summaryText(trace, summarize(trace));
  EXPECT_NE(text.find(std::string("stacks   none: ") + kWhy + "\n"), std::string::npos) << text;
  EXPECT_NE(summaryJson(trace, summarize(trace), -1).find("\"stacks_missing\""), std::string::npos);
  const Trace framed = allocations(true);
  EXPECT_EQ(summaryText(framed, summarize(framed)).find("stacks "), std::string::npos);
}

TEST(MissingStacks, LiveBytesHeadlineSaysWhy) {
  const LiveBytes live = liveBytesAt(cpuRecording(), 0);
  EXPECT_NE(live.headline.find(std::string("no call stacks: ") + kWhy), std::string::npos) << live.headline;
  EXPECT_EQ(liveBytesAt(allocations(true), 0).headline.find("no call stacks"), std::string::npos);
}

TEST(MissingStacks, DiffSaysWhichSideHasNoneAndWhy) {
  const Trace cpu = cpuRecording(), framed = allocations(true);
  auto both = diffTraces(cpu, "a.sawtooth", cpu, "b.sawtooth");
  ASSERT_TRUE(both.ok());
  EXPECT_TRUE(anyLineHas(*both, std::string("A and B have no call stacks (") + kWhy + ")"));
  auto one = diffTraces(framed, "a.sawtooth", cpu, "b.sawtooth");
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(anyLineHas(*one, std::string("B has no call stacks (") + kWhy + ")"));
  EXPECT_FALSE(anyLineHas(*one, "A has no call stacks"));
}

}  // namespace
}  // namespace sawtooth
