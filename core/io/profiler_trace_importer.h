#pragma once
// torch.profiler Chrome traces (export_chrome_trace with profile_memory=True): the "[memory]" and
// "[OutOfMemory]" instant events become allocator events per device, their "Total Allocated" and
// "Total Reserved" become counters, and user_annotation ranges become phases.

#include <string>

#include "core/io/read_limits.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

// `json` may carry simdjson's padding in its capacity (readFileBytes leaves it); else it is copied.
Result<Trace> importProfilerTrace(const std::string& json, Progress* progress = nullptr);
// The same over bytes with `capacity` readable bytes from their start (0: unknown, then copied),
// within the budget's limits (JSON depth, memory).
Result<Trace> importProfilerTrace(std::string_view json, Progress* progress, ReadBudget* budget, size_t capacity = 0);

}  // namespace sawtooth
