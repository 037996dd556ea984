#pragma once
// A distributed run's ranks side by side: each rank's own peak (its run's events only, so ranks
// that share a device id — every CPU rank is device -1 — are never summed), the plan's two lines
// for the model state per rank — 16P when every rank keeps all of Adam's state, 4P + 4P + 8P/N
// when it is sharded — and the imbalance (largest over smallest peak). The lanes, one timeline per
// rank on the shared clock, are analysed off the GUI thread too.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/trace_analysis.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct RankPeak {
  int rank = 0;
  uint16_t run = kNoRun;
  int16_t device = 0;                  // where the rank trained (the device of its largest peak)
  int64_t peak_allocated = 0;
  double planned_optimizer_state = 0;  // bytes, from the rank's plan
  double relative_to_lowest = 0;       // this peak over the smallest rank's (0 when that is 0)
};

struct RankComparison {
  std::vector<RankPeak> ranks;  // by rank
  int world_size = 0;
  std::string variant;          // "plain" or "sharded" (the workload's parameter), may be empty
  double parameter_bytes = 0;   // 4P
  double replicated_bytes = 0;  // 16P: parameters, gradients and all of Adam's state
  double sharded_bytes = 0;     // 4P + 4P + 8P/N
  int64_t lowest = 0, highest = 0;
  double imbalance = 0;         // highest / lowest, 0 when a rank allocated nothing
};

// Nothing when the trace has no runs with a rank.
std::optional<RankComparison> compareRanks(const Trace& trace);

struct RankLane {
  int rank = 0;
  std::shared_ptr<const TraceAnalysis> analysis;  // the rank's own trace (core/analysis/rank_split.h)
};
// Empty when the trace has no ranks; cancelled work says so.
Result<std::vector<RankLane>> rankLanes(const Trace& trace, Progress* progress = nullptr);

}  // namespace sawtooth
