#pragma once
// The checks every loaded trace passes, whatever its format (the readers check what only their
// format can get wrong, such as a time that is a string).
//
// Impossible values are refused, naming the event: negative sizes, running totals that leave
// 64 bits, devices below -1 (the CPU). Odd but possible sequences are counted as anomalies
// (core/model/anomaly.h) into trace.anomalies.

#include <cstdint>
#include <string_view>

#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

// "event 17 (alloc on cuda:0): size -5 is negative". Sizes past `max_size` are refused too
// ("... more than any device holds (the size limit, N bytes; `size_hint`)").
Status checkTraceValues(const Trace& trace, int64_t max_size = INT64_MAX, std::string_view size_hint = {});
// The bytes allocated (reserved) before the trace began are what its file says (a snapshot's
// segments at the end, less what the trace adds): when they come out negative, the file
// contradicts itself. They are set to 0 (the series then starts from what the trace itself
// allocates) and a warning in meta["warnings"] says by how much, per device.
void settleBaselines(Trace& trace);
// Fills trace.anomalies. The table of addresses it follows may take `max_bytes` at most.
Status countAnomalies(Trace& trace, uint64_t max_bytes = UINT64_MAX);

}  // namespace sawtooth
