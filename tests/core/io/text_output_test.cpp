// The text sawtooth-trace prints (info, segments, diff, modules): every string a file brings is escaped, so
// a name can neither drive the terminal nor forge a line of the output.

#include <gtest/gtest.h>

#include "core/analysis/trace_summary.h"
#include "core/analysis/module_memory.h"
#include "core/io/allocator_json.h"
#include "core/io/module_json.h"
#include "core/io/summary_json.h"

namespace sawtooth {
namespace {

// Characters that must not reach a terminal raw (a newline only where the printer puts one).
std::string rawControls(const std::string& text) {
  std::string found;
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n') || c == 0x7f) found += std::to_string(c) + " ";
  return found;
}

bool hasLine(const std::string& text, const std::string& line) {
  return ("\n" + text + "\n").find("\n" + line + "\n") != std::string::npos;
}

Trace hostileNames() {
  Trace trace;
  trace.format = "sawtooth";
  trace.deviceInfo(0).name = "H200\x1b[2J\nevents   999";
  Run run;
  run.name = "step\x1b]0;title\x07\nformat   forged";
  run.measurements.push_back({"time\rms", 1.5, "s\x1b[31m"});
  trace.runs.push_back(run);
  Event e;
  e.device = 0;
  e.addr = 0x1000;
  e.size = 512;
  e.run = 0;
  trace.events.push(e);
  trace.meta["warnings"] = "one\nsource   forged";
  return trace;
}

TEST(TextOutput, InfoEscapesNamesFromTheFile) {
  const Trace trace = hostileNames();
  const std::string text = summaryText(trace, summarize(trace));
  EXPECT_EQ(rawControls(text), "");
  EXPECT_FALSE(hasLine(text, "events   999")) << text;
  EXPECT_FALSE(hasLine(text, "format   forged")) << text;
  EXPECT_FALSE(hasLine(text, "source   forged")) << text;
  EXPECT_NE(text.find("H200\\x1b[2J\\nevents   999"), std::string::npos) << text;
  EXPECT_NE(text.find("step\\x1b]0;title\\x07\\nformat   forged"), std::string::npos) << text;
}

TEST(TextOutput, SegmentsAndDiffEscapeNamesFromTheFile) {
  const Trace trace = hostileNames();
  SegmentsEntry entry;
  entry.state.device = 0;
  entry.error = "cannot replay\nevents   999";
  const std::string segments = segmentsText(trace, {entry});
  EXPECT_EQ(rawControls(segments), "");
  EXPECT_FALSE(hasLine(segments, "events   999")) << segments;

  TraceDiff diff;
  diff.change.lines = {"peak grew\x1b[2J", "\x1b[Hforged"};
  DiffRow row;
  row.site = "train.py:3\nforged line";
  row.b_bytes = 512;
  diff.rows.push_back(row);
  const std::string text = diffText(diff);
  EXPECT_EQ(rawControls(text), "");
  EXPECT_FALSE(hasLine(text, "forged line")) << text;
  EXPECT_NE(text.find("train.py:3\\nforged line"), std::string::npos) << text;
}

// `sawtooth-trace modules`: module names come from the recording.
TEST(TextOutput, ModulesEscapeNamesFromTheFile) {
  ModuleMemory memory;
  memory.headline = "At the peak in Net\x1b[2J";
  ModuleRow root;
  root.module = 0;
  root.name = "Net";
  ModuleRow child;
  child.module = 1;
  child.name = "Net.enc\nforged line";
  child.parent_row = 0;
  child.depth = 1;
  child.self[Category::Activation] = child.total[Category::Activation] = 512;
  root.total = child.total;
  memory.rows = {root, child};
  const std::string text = modulesText(memory, -1);
  EXPECT_EQ(rawControls(text), "");
  EXPECT_FALSE(hasLine(text, "forged line")) << text;
  EXPECT_NE(text.find("  enc\\nforged line"), std::string::npos) << text;
}

}  // namespace
}  // namespace sawtooth
