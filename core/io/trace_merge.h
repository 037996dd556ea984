#pragma once
// One trace from the traces of a distributed run's ranks (one process and one file per rank).
//
// Each rank's runs become runs of the merged trace, named "rank R" (or "rank R: NAME" when a rank
// recorded several) with `rank` first in their configuration. On the CPU every rank is device -1,
// so the run is what tells the ranks apart: every event, phase and kernel of a rank belongs to
// one of its runs, and those a rank recorded outside any run go to its first run. Device ids are
// kept (on GPUs each rank has its own device).
//
// Times: each file's events count from its own start, `t0_clock_ns` in its meta table (the
// recorder's CLOCK_MONOTONIC reading). The ranks of one host share that clock, so every rank is
// shifted onto the earliest rank's start, and the merged trace's t0_clock_ns is that start.
// Events are interleaved in time order; each rank's own order is kept.

#include <span>
#include <string>
#include <vector>

#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

struct RankTrace {
  int rank = 0;
  Trace trace;
};

Result<Trace> mergeRankTraces(std::span<const RankTrace> ranks);

// Reads each rank's .sawtooth file (rank = position in the list), merges them and writes the
// merged trace to `out_path`.
Status mergeRankFiles(std::span<const std::string> rank_paths, const std::string& out_path);

}  // namespace sawtooth
