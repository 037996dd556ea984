#include "core/analysis/allocator_replay.h"

#include <algorithm>

#include "core/analysis/live_allocations.h"

namespace sawtooth {

DeviceId largestPeakDevice(const Trace& trace) {
  DeviceId best = 0;
  int64_t top = -1;
  for (const DeviceId d : trace.deviceIds()) {
    const int64_t peak = scopePeak(trace, static_cast<int16_t>(d)).bytes;
    if (peak > top) top = peak, best = d;
  }
  return best;
}

DeviceId largestPeakDevice(const TraceAnalysis& analysis) {
  DeviceId best = 0;
  int64_t top = -1;
  for (const auto& d : analysis.devices()) {
    const SeriesAnalysis* allocated = d->line(SeriesKind::Allocated);
    const int64_t peak = allocated ? allocated->peak.value : -1;
    if (peak > top) top = peak, best = d->device;
  }
  return best;
}

Result<AllocatorReplay> replayAllocator(std::shared_ptr<const Trace> trace, DeviceId device, Progress* progress) {
  auto history = AllocatorHistory::build(*trace, static_cast<int16_t>(device), {}, progress);
  if (!history.ok()) return history.error();
  AllocatorReplay out;
  out.history = std::make_shared<const AllocatorHistory>(std::move(history.value()));
  out.fragmentation = std::make_shared<const FragmentationSeries>(trace, out.history);
  out.open_at = out.history->report().peak_position;
  const auto& events = out.history->events();
  for (size_t i = 0; i < events.size(); ++i)
    if (trace->events.action()[events[i]] == Action::Oom) {
      out.open_at = static_cast<int64_t>(i);
      break;
    }
  return out;
}

int64_t allocatorPositionAt(const AllocatorHistory& history, uint64_t event) {
  const auto& events = history.events();
  return static_cast<int64_t>(std::upper_bound(events.begin(), events.end(), event) - events.begin()) - 1;
}

}  // namespace sawtooth
