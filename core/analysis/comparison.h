#pragma once
// Two traces side by side: merged into one (core/model/trace_merge.h) so that one timeline draws
// both — A's devices keep their ids, B's are offset by kCompareOffset and every device, phase and
// run is named "A …" / "B …" — and a table of their peaks: per device and series, and per run of
// the same name (fp32 against fp32, k=4 against k=4).
//
// Traces of different lengths line up by allocation-event index (each device's own count), by time
// (both from their start), or by step (B's steps stretched onto A's, core/analysis/step_alignment.h).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/step_alignment.h"
#include "core/analysis/table.h"
#include "core/analysis/trace_analysis.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

inline constexpr int16_t kCompareOffset = 1000;

enum class Alignment : uint8_t { EventIndex, Time, Step };

struct Comparison {
  Alignment alignment = Alignment::EventIndex;
  bool by_time = false;                           // draw against time (time and step alignment)
  std::shared_ptr<const TraceAnalysis> merged;
  Table differences;  // what, A, B, B − A, B / A
  std::string note;   // how the traces were aligned, or why step alignment fell back to time
};

// Null analyses or a merge failure give an error; cancelled work says so.
Result<Comparison> compareTraces(const TraceAnalysis& a, const std::string& name_a, const TraceAnalysis& b,
                                 const std::string& name_b, Alignment alignment, Progress* progress = nullptr);

// What the differences table is made of, whichever way the traces are read: each device's peak
// per line (allocated, reserved, driver, device used, those it draws) and the runs' measurements.
struct DevicePeaks {
  DeviceId device = 0;
  std::vector<std::pair<SeriesKind, int64_t>> peaks;
};
Table differencesTable(const std::vector<DevicePeaks>& a, const std::vector<DevicePeaks>& b, const Trace& a_tables,
                       const Trace& b_tables);
// "A: NAME · B: NAME · aligned …"; `steps` says how step alignment went (empty: it was not asked for).
std::string alignmentNote(const std::string& name_a, const std::string& name_b, Alignment alignment,
                          const std::string& steps = {});
std::string stepsNote(const StepStarts& a, const StepStarts& b);

}  // namespace sawtooth
