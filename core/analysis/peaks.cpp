#include "core/analysis/peaks.h"

#include <fmt/format.h>

#include "core/util/format_bytes.h"

namespace sawtooth {

Peak findPeak(const Series& series) {
  Peak peak;
  peak.value = series.start;
  for (size_t i = 0; i < series.size(); ++i) {
    if (series.value[i] > peak.value) {
      peak.value = series.value[i];
      peak.point = static_cast<int64_t>(i);
    }
  }
  if (peak.point >= 0) {
    const auto p = static_cast<size_t>(peak.point);
    peak.t_ns = series.t(p);
    peak.x_index = series.axis->index(p);
    peak.event = series.event(p);
  }
  return peak;
}

int64_t finalValue(const Series& series) { return series.empty() ? series.start : series.value.back(); }

std::string describePeakEvent(const Trace& trace, const Peak& peak) {
  if (peak.event >= trace.events.size()) return "before the trace began";
  const Event e = trace.events.at(peak.event);
  std::string text = fmt::format("{} of {}", name(e.action), formatBytes(e.size));
  if (e.phase != kNoPhase && e.phase < trace.phases.size()) text += " during " + trace.phases[e.phase].name;
  return text;
}

}  // namespace sawtooth
