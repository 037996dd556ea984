#pragma once
// Why a recording's allocations carry no call stacks, for every place that shows call sites (info,
// diff, Live bytes): a CPU recording through the profiler's memory events has none, and "(no
// stack)" alone reads as a bug. The recorder writes why (meta stacks=none, stacks_note).

#include <string>

#include "core/model/trace.h"

namespace sawtooth {

// Why there are none ("CPU allocations are recorded without stacks (...)", "recorded with --stacks
// none"), or empty when the trace has frames or does not say that it has none (a file of another
// tool).
std::string missingStacksReason(const Trace& trace);

}  // namespace sawtooth
