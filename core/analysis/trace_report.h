#pragma once
// Everything a trace's tab shows, computed in one go off the GUI thread from its analysis: the
// header line, the timeline's plan line, the runs' peaks, the plan against the count, the
// precision results, the runs table, the out-of-memory post-mortem and the ranks. The views
// format these values; they compute none of them.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/experiment_results.h"
#include "core/analysis/rank_comparison.h"
#include "core/analysis/table.h"
#include "core/analysis/trace_analysis.h"

namespace sawtooth {

// One entry of the header: a device's peak — or a rank's, where ranks share a device (every CPU
// rank is device -1, and the device's sum would add up separate processes).
struct HeadlineItem {
  std::string who;  // "cuda:0", "rank 1 (cpu)"
  int64_t peak_allocated = 0;
  std::optional<int64_t> peak_event_index;  // on the device's index axis; none before the trace began
  std::string peak_event;                   // "alloc of 16.8 MB during optimizer"
  std::optional<int64_t> peak_reserved;
  bool out_of_memory = false;
};

struct Headline {
  std::vector<HeadlineItem> items;
  size_t events = 0;
  std::string recorded_on;  // the GPU's name, when the file says
  std::string workload;
  std::string incomplete;             // "incomplete recording: killed (...)"; empty when complete
  std::vector<std::string> warnings;  // what the import skipped, and anomalies kept as recorded
};
Headline headlineOf(const TraceAnalysis& analysis, const std::optional<RankComparison>& ranks);
// One line per thing the import skipped (meta "warnings") and per kind of anomaly.
std::vector<std::string> traceWarnings(const Trace& trace);

// A horizontal line across the timeline: the plan's model state ("= 16P").
struct PlanLine {
  std::string label;   // what it is in words: "plan: parameters + gradients + optimizer state = 16P = 402.7 MB"
  double bytes = 0;
  std::string legend;  // the same, short enough for a chart's legend: "plan 16P = 402.7 MB"
};
std::vector<PlanLine> planLines(const Trace& trace);

// The first out-of-memory of the trace: what was asked for, what was free, what was alive.
struct OomReport {
  int16_t device = 0;
  std::string device_name;
  uint64_t event = 0;
  int64_t t_ns = 0;
  int64_t index = 0;                        // allocator-event index on the device
  int64_t requested = 0;
  std::optional<int64_t> device_free;       // the allocator's oom event carries it
  int64_t allocated = 0;                    // in force at the failure
  size_t live_blocks = 0;
  int64_t itemised = 0;                     // bytes in the blocks listed (those born in the trace)
  std::optional<int64_t> reported_free, reported_total;  // the recorder's allocator state
  Table blocks;                             // the largest live blocks, at most kMaxOomBlocks
};
inline constexpr size_t kMaxOomBlocks = 50;
std::optional<OomReport> oomReport(const TraceAnalysis& analysis);
// What the OOM event `e` (global index `event`, allocator-event index `index`) and the trace's meta
// say; the moment's figures (allocated, live blocks, blocks) are the caller's.
OomReport oomReportOf(const Trace& trace, DeviceId device, const Event& e, uint64_t event, int64_t index);
// The blocks table's columns, and one block's row (its allocation's time and phase given).
Table oomBlocksColumns();
void addOomBlock(Table& table, const Trace& trace, const LiveBlock& block, int64_t t_ns,
                 const std::optional<std::string>& phase);

// Every run's configuration (what differs between runs) and measurements, with their units.
Table runsTable(const Trace& trace);
// Every precision mode: median, spread, speed-ups, throughput, peak and settings.
Table precisionTable(const std::vector<PrecisionRow>& rows);

struct TraceReport {
  std::shared_ptr<const TraceAnalysis> analysis;
  std::string workload;
  Headline headline;
  std::vector<PlanLine> plan_lines;
  std::vector<PeakGroup> peak_groups;
  int16_t plan_device = 0;
  std::vector<PlanRow> plan_rows;
  std::vector<PrecisionRow> precision;
  Table precision_table;
  std::string precision_shared_config;  // the configuration every mode shared
  Table runs;
  std::optional<OomReport> oom;
  std::optional<RankComparison> ranks;
};
std::shared_ptr<const TraceReport> buildTraceReport(std::shared_ptr<const TraceAnalysis> analysis);
// A trace read on demand (no analysis): what its runs table gives (workload, plan lines, peak
// comparison, precision, runs). Its plan rows and out-of-memory come from summary_report.h.
TraceReport runFiguresReport(const Trace& tables);

}  // namespace sawtooth
