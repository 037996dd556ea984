#include "core/analysis/phase_spans.h"

#include <algorithm>

namespace sawtooth {

std::vector<PhaseSpan> computePhaseSpans(const TraceAnalysis& analysis, int16_t reference_device, bool by_time) {
  std::vector<PhaseSpan> out;
  const DeviceAnalysis* d = analysis.device(reference_device);
  if (!d) return out;
  const auto& phases = analysis.trace().phases;
  const auto& names = analysis.phaseNameIds();
  out.reserve(phases.size());
  for (size_t i = 0; i < phases.size(); ++i) {
    const Phase& p = phases[i];
    const double x0 = by_time ? static_cast<double>(p.begin_ns) : static_cast<double>(d->series.indexAtTime(p.begin_ns));
    const double x1 = by_time ? static_cast<double>(p.end_ns) : static_cast<double>(d->series.indexAtTime(p.end_ns));
    out.push_back(PhaseSpan{static_cast<uint32_t>(i), i < names.size() ? names[i] : 0, x0, std::max(x0, x1)});
  }
  std::stable_sort(out.begin(), out.end(), [](const PhaseSpan& a, const PhaseSpan& b) { return a.x0 < b.x0; });
  return out;
}

}  // namespace sawtooth
