#pragma once
// One trace from several, the one merge of Sawtooth: the ranks of a distributed run (one process
// and one file per rank) become one recording, and two traces to compare become one trace to draw
// on one timeline. Everything is carried over: events, stacks, phases, runs, kernels, devices and
// counters. Each input's events keep their order and are interleaved with the others' by time.

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

struct MergeInput {
  const Trace* trace = nullptr;
  // The input's times on the merged clock (null: as they are). Must not decrease.
  std::function<int64_t(int64_t)> time;
  int16_t device_offset = 0;  // added to every device id of the input
  // Prefixed to the input's device labels, phase and run names ("A" → "A cuda:0", "A: forward",
  // "A: fp32"); empty keeps them.
  std::string label;
  // A rank of a distributed run: its runs are named "rank R" ("rank R: NAME" when it recorded
  // several), carry `rank` first in their configuration, and take the events, phases and kernels
  // it recorded outside any run (a rank without runs gets one).
  int rank = -1;
};

Result<Trace> mergeTraces(std::span<const MergeInput> inputs);

// The ranks of a distributed run, aligned on their shared monotonic clock.
//
// Times: each file's events count from its own start, `t0_clock_ns` in its meta table (the
// recorder's CLOCK_MONOTONIC reading). The ranks of one host share that clock, so every rank is
// shifted onto the earliest rank's start, and the merged trace's t0_clock_ns is that start. On the
// CPU every rank is device -1, so the run is what tells the ranks apart. Meta: the first rank's,
// and another rank's entry that differs as "rankR.KEY".
struct RankTrace {
  int rank = 0;
  Trace trace;
};
Result<Trace> mergeRankTraces(std::span<const RankTrace> ranks);

}  // namespace sawtooth
