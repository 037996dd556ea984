#pragma once
// Several files' timelines drawn as one chart: a distributed run's ranks, each read from its own
// file's summaries while the recording runs (timeline_frame.h for each file). Every file's
// devices are devices of their own, named after their file ("rank 1 · cuda:0") and given the ids
// the rows of several files get (live_sources.h), so that two ranks on one GPU stay two lines.
// The axis is time: the files share a clock, not their allocator events, so a request on the index
// axis is answered on time (as live_timeline_frame.h answers it).

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/timeline_frame.h"

namespace sawtooth {

// One file of the merged timeline: its own overview and the merged id of each of its devices.
struct TimelinePart {
  std::string label;  // "rank 1"; empty: the devices keep their names
  TimelineOverview overview;
  std::vector<std::pair<DeviceId, DeviceId>> ids;  // (the file's, the merged timeline's)
  std::optional<DeviceId> mergedId(DeviceId own) const;
};

// The union of the parts' devices (merged ids, names with their file's label), the time extent of
// the parts that have devices, events summed, the largest value, the phase names of all (the first
// few, as the legend shows them).
TimelineOverview mergedOverview(std::span<const TimelinePart> parts);

// What to ask one part for: its own devices among those asked (all it has when none are named), on
// the time axis. Nothing when none of its devices are asked.
std::optional<TimelineRequest> partRequest(const TimelinePart& part, const TimelineRequest& request);

struct PartFrame {
  const TimelinePart* part = nullptr;
  TimelineFrame frame;
};
// The parts' frames as the frame of `request` (its id kept): lines and stacks under merged ids,
// each phase name's bands from all files joined where they overlap or lie closer than a column,
// the reads summed.
TimelineFrame mergedFrame(const TimelineRequest& request, std::vector<PartFrame> frames);

}  // namespace sawtooth
