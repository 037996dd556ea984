#include "core/analysis/timeline_merge.h"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace sawtooth {
namespace {

constexpr size_t kMaxPhaseNames = 8;  // as overviewOf keeps them for the legend

// Each name's bands from every file, those that overlap or lie closer than a column joined (the
// ranks of one run mostly share their phases: one band, not one per rank on top of each other).
std::vector<TimelineFrame::Band> joinedBands(std::vector<TimelineFrame::Band> bands, double column) {
  std::sort(bands.begin(), bands.end(), [](const auto& a, const auto& b) {
    return std::tie(a.name, a.annotation, a.x0) < std::tie(b.name, b.annotation, b.x0);
  });
  std::vector<TimelineFrame::Band> out;
  for (TimelineFrame::Band& b : bands) {
    if (!out.empty()) {
      TimelineFrame::Band& last = out.back();
      if (last.name == b.name && last.annotation == b.annotation && b.x0 - last.x1 < column) {
        last.x1 = std::max(last.x1, b.x1);
        continue;
      }
    }
    out.push_back(std::move(b));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.x0 < b.x0; });
  return out;
}

}  // namespace

std::optional<DeviceId> TimelinePart::mergedId(DeviceId own) const {
  for (const auto& [from, to] : ids)
    if (from == own) return to;
  return std::nullopt;
}

TimelineOverview mergedOverview(std::span<const TimelinePart> parts) {
  TimelineOverview out;
  bool extent = false;
  for (const TimelinePart& part : parts) {
    const TimelineOverview& o = part.overview;
    for (const TimelineOverview::Device& d : o.devices) {
      const auto id = part.mergedId(d.device);
      if (!id) continue;
      TimelineOverview::Device merged = d;  // peak_event stays the file's own event number
      merged.device = *id;
      if (!part.label.empty()) merged.name = part.label + " · " + d.name;
      out.devices.push_back(std::move(merged));
    }
    out.events += o.events;
    out.max_value = std::max(out.max_value, o.max_value);
    for (const std::string& name : o.phase_names)
      if (out.phase_names.size() < kMaxPhaseNames &&
          std::find(out.phase_names.begin(), out.phase_names.end(), name) == out.phase_names.end())
        out.phase_names.push_back(name);
    // A file without devices yet has no extent of its own (its overview's is the default 0..1).
    if (o.devices.empty()) continue;
    out.x_min_time = extent ? std::min(out.x_min_time, o.x_min_time) : o.x_min_time;
    out.x_max_time = extent ? std::max(out.x_max_time, o.x_max_time) : o.x_max_time;
    extent = true;
  }
  out.x_max_time = std::max(out.x_max_time, out.x_min_time + 1);
  out.x_max_index = out.x_max_time;  // time only: the files' allocator events do not interleave by index
  return out;
}

std::optional<TimelineRequest> partRequest(const TimelinePart& part, const TimelineRequest& request) {
  TimelineRequest own = request;
  own.by_time = true;
  own.devices.clear();
  // The devices are always named: a device the file has gained since its overview has no merged
  // id yet, and is drawn from the next overview on.
  for (const auto& [from, to] : part.ids)
    if (request.devices.empty() || std::find(request.devices.begin(), request.devices.end(), to) != request.devices.end())
      own.devices.push_back(from);
  if (own.devices.empty()) return std::nullopt;
  return own;
}

TimelineFrame mergedFrame(const TimelineRequest& request, std::vector<PartFrame> frames) {
  TimelineFrame out;
  out.request = request;
  std::vector<TimelineFrame::Band> bands;
  for (PartFrame& f : frames) {
    for (TimelineFrame::Line& line : f.frame.lines)
      if (const auto id = f.part->mergedId(line.device)) {
        line.device = *id;
        out.lines.push_back(std::move(line));
      }
    for (TimelineFrame::Stack& stack : f.frame.stacks)
      if (const auto id = f.part->mergedId(stack.device)) {
        stack.device = *id;
        out.stacks.push_back(std::move(stack));
      }
    std::move(f.frame.bands.begin(), f.frame.bands.end(), std::back_inserter(bands));
    out.reads += f.frame.reads;
  }
  out.bands = joinedBands(std::move(bands), (request.x1 - request.x0) / std::max(1, request.columns));
  return out;
}

}  // namespace sawtooth
