#pragma once
// The JSON that `sawtooth-trace info --json` prints (one object; see README for the fields).

#include <string>

#include "core/analysis/trace_summary.h"

namespace sawtooth {

std::string summaryJson(const Trace& trace, const TraceSummary& summary, int indent = 2);
// Human-readable form for `info` without --json.
std::string summaryText(const Trace& trace, const TraceSummary& summary);

}  // namespace sawtooth
