#pragma once
// The ranks of a merged distributed trace, each as a trace of its own (its run's events, phases and
// kernels, on the shared clock), for drawing one lane per rank. In a merged trace every rank is a
// run whose configuration names its `rank`.

#include <memory>
#include <vector>

#include "core/model/trace.h"

namespace sawtooth {

struct RankSlice {
  int rank = 0;
  uint16_t run = kNoRun;
  std::shared_ptr<const Trace> trace;
};

// Empty when the trace has no runs with a rank.
std::vector<RankSlice> splitByRank(const Trace& trace);

}  // namespace sawtooth
