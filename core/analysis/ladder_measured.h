#pragma once
// Measured rungs for the ladder's rows: runs that applied a rung to the program the baseline
// recorded. They come from the built-in workloads' own runs (checkpointing every N in either form,
// accumulation over k, precision bf16/fp16, data-parallel sharded = ZeRO-1 per rank) and from
// recordings made with `sawtooth-record --rung` (their meta names the rung). Each is measured by
// the same sweep as the baseline (core/analysis/ladder_input.h), so predicted and measured peaks
// are counted alike.

#include <string>
#include <vector>

#include "core/analysis/ladder.h"

namespace sawtooth {

// The rung a run applies, as a LadderRow id ("checkpoint:every=2", "accumulate:k=4", "bf16",
// "zero1:N=2", ...), or "" when it applies none. `trace_rung` is the trace's own meta "rung" (a
// --rung recording), which wins.
std::string rungOfRun(const Run& run, const std::string& trace_rung);

// Why `run`, of another recording, does not record the baseline's program, or "" when it does: a
// recorded program's run must have run the same command in the same folder; a workload's, be the
// same workload with the same parameters, those that choose a rung aside (checkpoint_every, k,
// mode, variant, ... and what they set).
std::string otherProgram(const LadderInput& baseline, const Run& run);

// The runs of `trace` that measure a rung of `baseline`'s program on its device (the baseline run
// itself left out). `label` names the trace in MeasuredRung::source. `rung`, when given, is the
// rung the whole trace measures (a recording that does not say, such as a ZeRO-1 script's); a
// distributed trace's ranks are matched with the baseline's rank. `same_program_only`: runs of
// another trace that record another program (otherProgram) are left out — the app's choice, where
// every open recording is a candidate; a file the user names (sawtooth-trace ladder --measured) is
// taken as asked.
std::vector<MeasuredRung> measuredRungs(const LadderInput& baseline, const Trace& trace, const std::string& label,
                                        bool same_trace, const std::string& rung = "", bool same_program_only = false);

}  // namespace sawtooth
