#pragma once
// Where the phases and annotations lie on a timeline's x axis: on the time axis their own times;
// on the index axis of the device being drawn, the count of its allocator events before each end
// (a phase of another device, or of all devices, is placed by time on the same device's count).

#include <cstdint>
#include <vector>

#include "core/analysis/trace_analysis.h"

namespace sawtooth {

// TraceAnalysis computes these once for every device and both axes (phaseSpans(device, by_time)).
// Ordered by x0 (ties by phase index). Empty when the device is not in the analysis.
std::vector<PhaseSpan> computePhaseSpans(const TraceAnalysis& analysis, int16_t reference_device, bool by_time);
inline std::vector<PhaseSpan> phaseSpans(const TraceAnalysis& analysis, int16_t reference_device, bool by_time) {
  return analysis.phaseSpans(reference_device, by_time);
}

}  // namespace sawtooth
