#include "core/analysis/trace_summary.h"

#include "core/analysis/category_series.h"

namespace sawtooth {

TraceSummary summarize(const Trace& trace) {
  TraceSummary s;
  s.format = trace.format;
  s.events = trace.events.size();
  std::array<size_t, kActionCount> counts{};
  for (Action a : trace.events.action()) ++counts[static_cast<size_t>(a)];
  for (int i = 0; i < kActionCount; ++i)
    if (counts[static_cast<size_t>(i)]) s.actions[std::string(name(static_cast<Action>(i)))] = counts[static_cast<size_t>(i)];

  for (DeviceId device : trace.deviceIds()) {
    DeviceSummary d;
    d.device = device;
    const auto& dev = trace.events.device();
    const auto& act = trace.events.action();
    for (size_t i = 0; i < trace.events.size(); ++i) {
      if (dev[i] != device) continue;
      ++d.events;
      if (act[i] == Action::Oom) ++d.oom_events;
    }
    DeviceSeries series = buildDeviceSeries(trace, device);
    d.allocator_events = series.allocatorEvents();
    d.peak_allocated = findPeak(series.allocated);
    d.final_allocated = finalValue(series.allocated);
    d.peak_reserved = findPeak(series.reserved);
    for (const Series* one : series.all()) d.series_peaks[one->kind] = findPeak(*one).value;
    d.invariants = checkMemoryOrder(trace, series);
    const CategoryPeaks cp = categoryPeaks(trace, device);
    d.category_peaks = cp.peak;
    d.has_categories = cp.any_categorised;
    s.devices.push_back(std::move(d));
  }
  s.run_peaks = runPeaks(trace);
  return s;
}

}  // namespace sawtooth
