#include "core/analysis/timeline_frame.h"

#include <algorithm>
#include <map>

namespace sawtooth {
namespace {

using namespace summary;

// The lines a device draws, in the order the in-memory timeline draws them (series.h).
constexpr std::pair<SeriesKind, int> kLines[] = {{SeriesKind::Allocated, kAllocated},
                                                 {SeriesKind::Reserved, kReserved},
                                                 {SeriesKind::Driver, kDriver},
                                                 {SeriesKind::DeviceUsed, kDeviceUsed}};

constexpr size_t kMaxPhases = 20000;  // in one window; beyond, the bands say "zoom in"
constexpr size_t kMaxIndexPhases = 500;

}  // namespace

int seriesFor(const TimelineModel::Device& d, SeriesKind kind) {
  if (kind == SeriesKind::Allocated && d.find(kAllocatedCounter)) return kAllocatedCounter;
  if (kind == SeriesKind::Reserved && d.find(kReservedCounter)) return kReservedCounter;
  for (const auto& [k, id] : kLines)
    if (k == kind) return id;
  return kAllocated;
}

bool drawsLine(const TimelineModel::Device& d, SeriesKind kind) {
  const SeriesRow* s = d.find(seriesFor(d, kind));
  return s && (s->points > 0 || kind == SeriesKind::Allocated || kind == SeriesKind::Reserved);
}

const TimelineOverview::Device* TimelineOverview::device(DeviceId id) const {
  for (const Device& d : devices)
    if (d.device == id) return &d;
  return nullptr;
}

Result<TimelineOverview> overviewOf(TimelineModel& model) {
  TimelineOverview out;
  for (const TimelineModel::Device& d : model.devices()) {
    TimelineOverview::Device od;
    od.device = d.device;
    od.name = deviceLabel(d.device);
    od.categorised = d.categorised;
    od.points = d.allocator_points;
    for (const auto& [kind, id] : kLines) {
      if (!drawsLine(d, kind)) continue;
      const SeriesRow* s = d.find(seriesFor(d, kind));
      od.kinds.push_back(kind);
      // The y axis' extent: every series' largest value.
      std::vector<std::pair<int64_t, NodeValues>> top;
      if (s->points > 0)
        if (Status st = model.source().nodes(d.device, s->series, topLevel(s->points), 0, 0, top); !st) return st.error();
      out.max_value = std::max({out.max_value, s->start, top.empty() ? s->start : top[0].second.max});
    }
    auto peak = model.peak(d.device, seriesFor(d, SeriesKind::Allocated));
    if (!peak) return peak.error();
    od.peak = peak->value;
    od.peak_point = peak->point;
    od.peak_t_ns = peak->t_ns;
    od.peak_event = peak->seq;
    auto reserved = model.peak(d.device, seriesFor(d, SeriesKind::Reserved));
    if (!reserved) return reserved.error();
    od.peak_reserved = reserved->value;
    out.devices.push_back(std::move(od));
  }
  out.x_min_time = model.xMin(true);
  out.x_max_time = model.xMax(true);
  out.x_max_index = model.xMax(false);
  auto events = model.source().eventCount();
  if (!events) return events.error();
  out.events = *events;
  std::vector<Phase> phases;
  if (Status st = model.source().phases(static_cast<int64_t>(out.x_min_time), static_cast<int64_t>(out.x_max_time) + 1,
                                        256, phases);
      !st)
    return st.error();
  for (const Phase& p : phases)
    if (std::find(out.phase_names.begin(), out.phase_names.end(), p.name) == out.phase_names.end() &&
        out.phase_names.size() < 8)
      out.phase_names.push_back(p.name);
  return out;
}

Result<TimelineFrame> frameOf(TimelineModel& model, const TimelineRequest& request) {
  TimelineFrame frame;
  frame.request = request;
  for (const TimelineModel::Device& d : model.devices()) {
    if (!request.devices.empty() && std::find(request.devices.begin(), request.devices.end(), d.device) == request.devices.end())
      continue;
    // Allocated and reserved share their axis (and their events: read once).
    std::vector<SeriesKind> kinds;
    std::vector<int> shared;
    for (const auto& [kind, id] : kLines) {
      if (!drawsLine(d, kind)) continue;
      const int series = seriesFor(d, kind);
      if (axisOf(series) == kAllocatorAxis) {
        kinds.push_back(kind);
        shared.push_back(series);
        continue;
      }
      auto points = model.query(d.device, series, request.by_time, request.x0, request.x1, request.columns);
      if (!points) return points.error();
      frame.reads += model.lastReads().nodes + model.lastReads().events;
      frame.lines.push_back({d.device, kind, std::move(*points)});
    }
    if (!shared.empty()) {
      auto points = model.queryMany(d.device, shared, request.by_time, request.x0, request.x1, request.columns);
      if (!points) return points.error();
      frame.reads += model.lastReads().nodes + model.lastReads().events;
      for (size_t k = 0; k < shared.size(); ++k) frame.lines.push_back({d.device, kinds[k], std::move((*points)[k])});
    }
    if (request.stacked && d.categorised) {
      auto stack = model.categories(d.device, request.by_time, request.x0, request.x1, request.columns);
      if (!stack) return stack.error();
      frame.reads += model.lastReads().nodes + model.lastReads().events;
      frame.stacks.push_back({d.device, std::move(*stack)});
    }
  }
  if (!request.bands || model.devices().empty()) return frame;
  // The phases in the window: on the index axis, where the first device's points put them.
  const TimelineModel::Device& reference = request.devices.empty() ? model.devices().front() : *model.device(request.devices.front());
  int64_t t0 = static_cast<int64_t>(request.x0), t1 = static_cast<int64_t>(request.x1) + 1;
  if (!request.by_time) {
    const int64_t last = std::max<int64_t>(reference.allocator_points - 1, 0);
    auto a = model.timeOfPoint(reference.device, std::clamp<int64_t>(static_cast<int64_t>(request.x0), 0, last));
    auto b = model.timeOfPoint(reference.device, std::clamp<int64_t>(static_cast<int64_t>(request.x1) + 1, 0, last));
    if (!a || !b) return frame;
    t0 = *a;
    t1 = *b + 1;
  }
  std::vector<Phase> phases;
  if (Status st = model.source().phases(t0, t1, (request.by_time ? kMaxPhases : kMaxIndexPhases) + 1, phases); !st)
    return st.error();
  const double column = (request.x1 - request.x0) / std::max(1, request.columns);
  // (On the index axis each phase's place is looked up: a few hundred at most.)
  if (phases.size() > (request.by_time ? kMaxPhases : kMaxIndexPhases)) {
    frame.bands.push_back({"phases (zoom in to tell them apart)", false, request.x0, request.x1});
    return frame;
  }
  // Each name's bands, neighbours closer than a column merged.
  std::map<std::string, size_t> open;
  for (const Phase& p : phases) {
    double x0 = static_cast<double>(p.begin_ns), x1 = static_cast<double>(p.end_ns);
    if (!request.by_time) {
      auto a = model.pointAtTime(reference.device, kAllocatorAxis, p.begin_ns);
      auto b = model.pointAtTime(reference.device, kAllocatorAxis, p.end_ns);
      if (!a || !b) continue;
      x0 = static_cast<double>(*a);
      x1 = static_cast<double>(std::max(*a, *b - 1));
    }
    auto it = open.find(p.name);
    if (it != open.end() && x0 - frame.bands[it->second].x1 < column) {
      frame.bands[it->second].x1 = std::max(frame.bands[it->second].x1, x1);
      continue;
    }
    open[p.name] = frame.bands.size();
    frame.bands.push_back({p.name, p.kind == PhaseKind::Annotation, x0, x1});
  }
  return frame;
}

}  // namespace sawtooth
