#pragma once
// torch.profiler Chrome traces (export_chrome_trace with profile_memory=True): the "[memory]" and
// "[OutOfMemory]" instant events become allocator events per device, their "Total Allocated" and
// "Total Reserved" become counters, and user_annotation ranges become phases.

#include <string>

#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

// `json` may carry simdjson's padding in its capacity (readFileBytes leaves it); else it is copied.
Result<Trace> importProfilerTrace(const std::string& json, Progress* progress = nullptr);

}  // namespace sawtooth
