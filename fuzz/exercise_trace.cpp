#include "fuzz/exercise_trace.h"

#include <ostream>
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

}  // namespace

void exerciseTrace(const Trace& trace) {
  const TraceSummary summary = summarize(trace);
  (void)summaryJson(trace, summary);
  (void)summaryText(trace, summary);
  for (DeviceId device : trace.deviceIds()) {
    const DeviceSeries ds = buildDeviceSeries(trace, device);
    for (const Series* s : ds.all()) {
      querySeries(*s);
      (void)describePeakEvent(trace, findPeak(*s));
    }
    exerciseAllocator(trace, device);
  }
  if (auto diff = diffTraces(trace, "a", trace, "b")) (void)diffJson(*diff);
  NullBuffer sink;
  std::ostream out(&sink);
  writeSeriesCsv(trace, out);
  writeEventsCsv(trace, out);
  writeChromeTrace(trace, out);
}

}  // namespace sawtooth::fuzz
