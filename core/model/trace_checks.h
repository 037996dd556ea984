#pragma once
// The checks every loaded trace passes, whatever its format (the readers check what only their
// format can get wrong, such as a time that is a string).
//
// Impossible values are refused, naming the event: negative sizes, running totals that leave
// 64 bits, devices below -1 (the CPU). Odd but possible sequences are counted as anomalies
// (core/model/anomaly.h) into trace.anomalies.

#include <cstdint>

#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

// "event 17 (alloc on cuda:0): size -5 is negative".
Status checkTraceValues(const Trace& trace);
// Fills trace.anomalies. The table of addresses it follows may take `max_bytes` at most.
Status countAnomalies(Trace& trace, uint64_t max_bytes = UINT64_MAX);

}  // namespace sawtooth
