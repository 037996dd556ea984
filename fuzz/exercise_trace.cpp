#include "fuzz/exercise_trace.h"

#include <ostream>
#include <streambuf>

#include "core/analysis/lod_pyramid.h"
#include "core/analysis/peaks.h"
#include "core/analysis/series.h"
#include "core/analysis/trace_summary.h"
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
    const auto& xs = s.xs(by_time);
    const double x0 = xs.empty() ? 0.0 : static_cast<double>(xs.front());
    const double x1 = xs.empty() ? 1.0 : static_cast<double>(xs.back()) + 1.0;
    (void)lod.query(xs, s.start, x0, x1, 64);
    (void)lod.query(xs, s.start, x0 + (x1 - x0) / 3, x0 + (x1 - x0) / 2, 7);
  }
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
  }
  NullBuffer sink;
  std::ostream out(&sink);
  writeSeriesCsv(trace, out);
  writeEventsCsv(trace, out);
  writeChromeTrace(trace, out);
}

}  // namespace sawtooth::fuzz
