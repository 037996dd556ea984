#pragma once
// Where each training step of a trace begins, and a map of one trace's time onto another's that
// makes their steps line up: step k of B is stretched (or squeezed) onto step k of A.
//
// Step starts, by the first rule that finds two or more:
//   1. the workload's own phases (Sawtooth recordings): each "forward" phase begins a step;
//   2. torch.profiler's "ProfilerStep#N" annotations begin steps;
//   3. PyTorch's "Optimizer.step#..." annotations end them (the first step starts with the trace).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model/trace.h"

namespace sawtooth {

struct StepStarts {
  std::vector<int64_t> t_ns;  // ascending
  std::string source;         // "forward phases", "ProfilerStep annotations", "optimizer steps"; empty: none found
};
StepStarts findStepStarts(const Trace& trace);
// The same from the phases alone and the time of the trace's first event (a file read in parts).
StepStarts findStepStarts(const std::vector<Phase>& phases, int64_t first_event_ns);

// Maps B's times so that B's step k starts where A's step k starts, linearly in between; before
// the first and after the last common step, B is shifted with its nearest step. Never decreasing.
class StepWarp {
 public:
  StepWarp() = default;  // the identity
  StepWarp(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
  int64_t operator()(int64_t t) const;
  // An A time back on B's clock: the earliest B time that maps at or after it, give or take the
  // rounding of a stretched step (a window asked for in A's time, widened by a nanosecond, covers it).
  int64_t inverse(int64_t t) const;
  size_t steps() const { return from_.size(); }

 private:
  std::vector<int64_t> from_, to_;  // B's step starts and A's
};
std::function<int64_t(int64_t)> stepWarp(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace sawtooth
