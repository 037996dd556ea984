#include "core/analysis/live_timeline_frame.h"

#include <algorithm>
#include <string>

namespace sawtooth {

TimelineOverview overviewOf(const LiveTimeline& timeline) {
  TimelineOverview out;
  for (const LiveTimeline::Device& d : timeline.devices()) {
    // A device as soon as it has points (devices appear while the recording runs).
    if (d.allocated.empty() && d.device_used.empty()) continue;
    TimelineOverview::Device od;
    od.device = d.device;
    const std::string device = d.source_device < 0 ? "cpu" : "cuda:" + std::to_string(d.source_device);
    od.name = d.label.empty() ? device : d.label + " · " + device;
    if (!d.allocated.empty()) od.kinds = {SeriesKind::Allocated, SeriesKind::Reserved};
    if (!d.device_used.empty()) od.kinds.push_back(SeriesKind::DeviceUsed);
    od.points = static_cast<int64_t>(d.allocator_t.size());
    od.peak = d.allocated.empty() ? d.allocated.start : d.allocated.peak;
    od.peak_point = d.allocated.peak_point;
    od.peak_t_ns = d.allocator_t.empty() ? 0 : d.allocator_t[static_cast<size_t>(std::max<int64_t>(od.peak_point, 0))];
    od.peak_reserved = d.reserved.empty() ? d.reserved.start : d.reserved.peak;
    out.devices.push_back(std::move(od));
  }
  out.max_value = timeline.maxValue();
  out.events = timeline.events();
  out.x_min_time = static_cast<double>(timeline.firstTime().value_or(0));
  out.x_max_time = std::max(static_cast<double>(timeline.lastTime()), out.x_min_time + 1);
  out.x_max_index = out.x_max_time;  // time only
  return out;
}

TimelineFrame frameOf(const LiveTimeline& timeline, const TimelineRequest& request) {
  TimelineFrame frame;
  frame.request = request;
  for (const LiveTimeline::Device& d : timeline.devices()) {
    if (!request.devices.empty() && std::find(request.devices.begin(), request.devices.end(), d.device) == request.devices.end())
      continue;
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::DeviceUsed}) {
      auto points = timeline.query(d, kind, request.x0, request.x1, request.columns);
      if (!points.empty()) frame.lines.push_back({d.device, kind, std::move(points)});
    }
  }
  return frame;
}

}  // namespace sawtooth
