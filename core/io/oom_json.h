#pragma once
// The document of `sawtooth-trace oom` (see README): the first out-of-memory's post-mortem
// (trace_report.h's OomReport: what was asked for, what was free, the largest blocks alive) with
// the allocator's explanation of it (oom_explanation.h) where the trace has segments.

#include <cstdint>
#include <optional>
#include <string>

#include "core/analysis/oom_explanation.h"
#include "core/analysis/trace_report.h"

namespace sawtooth {

struct OomDocument {
  std::string file;
  uint64_t oom_events = 0;  // every device's
  std::optional<OomReport> report;        // the first one's; none without an OOM
  std::optional<OomExplanation> explanation;
  std::string why_unexplained;  // no explanation: why, in words
};

std::string oomJson(const OomDocument& doc, int indent = 2);
std::string oomText(const OomDocument& doc);

}  // namespace sawtooth
