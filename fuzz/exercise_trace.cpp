#include "fuzz/exercise_trace.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <streambuf>

#include "core/analysis/allocator_history.h"
#include "core/analysis/flame_graph.h"
#include "core/analysis/lod_pyramid.h"
#include "core/analysis/oom_explanation.h"
#include "core/analysis/peaks.h"
#include "core/analysis/series.h"
#include "core/analysis/trace_diff.h"
#include "core/analysis/trace_summary.h"
#include "core/io/allocator_json.h"
#include "core/io/chrome_trace_export.h"
#include "core/io/csv_export.h"
#include "core/io/summary_json.h"

namespace sawtooth::fuzz {
namespace {

// Discards what the exporters write: only their reading of the trace matters here.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

void querySeries(const Series& s) {
  const LodPyramid lod(s.value);
  for (bool by_time : {true, false}) {
    const auto xs = s.axis->xs(by_time);
    const double x0 = s.empty() ? 0.0 : s.axis->x(0, by_time);
    const double x1 = s.empty() ? 1.0 : s.axis->x(s.size() - 1, by_time) + 1.0;
    (void)lod.query(xs, s.start, x0, x1, 64);
    (void)lod.query(xs, s.start, x0 + (x1 - x0) / 3, x0 + (x1 - x0) / 2, 7);
  }
}

// The allocator replay and what stands on it: states, OOM explanations, live bytes by call site.
void exerciseAllocator(const Trace& trace, int16_t device) {
  ReplayOptions options;
  options.first_checkpoint_interval = 16;
  auto history = AllocatorHistory::build(trace, device, options);
  if (!history) return;
  const auto n = static_cast<int64_t>(history->events().size());
  std::vector<SegmentsEntry> entries(1);
  entries[0].state = history->stateAfter(n / 2);
  entries[0].report = &history->report();
  (void)history->stateAfter(-1);
  (void)explainOoms(trace, *history);
  (void)segmentsJson(trace, "fuzz", entries);
  (void)segmentsText(trace, entries);
  const LiveSet live = liveAllocationsAt(trace, device, scopePeak(trace, device).position);
  SiteNamer names(trace.stacks);
  (void)buildFlameGraph(trace, live, names, FrameSelection::All);
  (void)siteTable(live, names);
}

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  std::abort();
}

// What a terminal would obey: control characters but the newline, DEL, C1 controls.
void expectPrintable(const std::string& text, const char* what) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if ((c < 0x20 && c != '\n') || c == 0x7f || c1) broken(std::string(what) + " prints a raw control character");
  }
}

}  // namespace

void checkAmplification(const Trace& trace, size_t input_bytes, uint64_t floor) {
  const uint64_t cap = std::max<uint64_t>(floor, uint64_t{16} * input_bytes);
  if (trace.events.size() > cap || trace.stacks.stackFrameCount() > cap)
    broken("the trace holds " + std::to_string(trace.events.size()) + " events and " +
           std::to_string(trace.stacks.stackFrameCount()) + " stack frames from " + std::to_string(input_bytes) +
           " bytes: past the amplification limit");
}

void exerciseTrace(const Trace& trace) {
  if (trace.stacks.longestIndexRun() > 256)
    broken("an interning index walks " + std::to_string(trace.stacks.longestIndexRun()) + " slots: keys collide");
  const TraceSummary summary = summarize(trace);
  (void)summaryJson(trace, summary);
  expectPrintable(summaryText(trace, summary), "info");
  for (DeviceId device : trace.deviceIds()) {
    const DeviceSeries ds = buildDeviceSeries(trace, device);
    for (const Series* s : ds.all()) {
      querySeries(*s);
      (void)describePeakEvent(trace, findPeak(*s));
    }
    exerciseAllocator(trace, device);
  }
  if (auto diff = diffTraces(trace, "a", trace, "b")) {
    (void)diffJson(*diff);
    expectPrintable(diffText(*diff), "diff");
  }
  NullBuffer sink;
  std::ostream out(&sink);
  writeSeriesCsv(trace, out);
  writeEventsCsv(trace, out);
  writeChromeTrace(trace, out);
}

}  // namespace sawtooth::fuzz
