#include "core/analysis/event_details.h"

#include <algorithm>

#include "core/analysis/frame_filter.h"
#include "core/analysis/module_memory.h"

namespace sawtooth {

std::optional<EventDetails> eventDetails(const TraceAnalysis& analysis, uint64_t event, std::optional<size_t> point,
                                         size_t max_frames) {
  const Trace& t = analysis.trace();
  if (event >= t.events.size()) return std::nullopt;
  EventDetails d;
  d.event = t.events.at(event);
  d.device = t.deviceName(d.event.device);
  if (const DeviceAnalysis* dev = analysis.device(d.event.device)) {
    const SeriesAxis& axis = *dev->series.allocator;
    // The hint when it is right, else a search; nothing for an event not on the allocator's axis.
    size_t p = point.value_or(SIZE_MAX);
    if (p >= axis.size() || axis.event[p] != event) {
      const auto found = axis.pointAtOrBefore(event);
      p = found && axis.event[*found] == event ? *found : SIZE_MAX;
    }
    if (p != SIZE_MAX) {
      d.index = static_cast<int64_t>(p);
      const Series& a = dev->series.allocated;
      const Series& r = dev->series.reserved;
      if (a.axis.get() == &axis) d.allocated_after = a.value[p];
      if (r.axis.get() == &axis) d.reserved_after = r.value[p];
    }
  }
  if (d.event.category != Category::Unknown) {
    d.category = std::string(name(d.event.category));
    std::replace(d.category.begin(), d.category.end(), '_', ' ');
  }
  if (d.event.phase < t.phases.size()) d.phase = t.phases[d.event.phase].name;
  if (d.event.run < t.runs.size()) d.run = t.runs[d.event.run].name;
  if (!t.modules.empty()) {
    const uint32_t m = t.events.module(event);
    d.module = m < t.modules.size() ? t.modules.fullName(m) : std::string(kOutsideModules);
    if (const Pass pass = t.events.pass(event); pass != Pass::None) d.pass = std::string(name(pass));
  }
  if (d.event.stack != kNoStack)
    for (uint32_t f : interestingFrames(t.stacks, d.event.stack, max_frames)) {
      const FrameView fr = t.stacks.frame(f);
      d.frames.push_back(Frame{std::string(fr.name), std::string(fr.file), fr.line});
    }
  return d;
}

}  // namespace sawtooth
