#pragma once
// A live timeline (live_timeline.h: a recording followed through the rows of its files, as a
// distributed run's ranks write them) in the terms the timeline chart draws any trace in
// (timeline_frame.h), so that one chart shows it. Its x axis is time: a request on the index axis
// is answered on time.

#include "core/analysis/live_timeline.h"
#include "core/analysis/timeline_frame.h"

namespace sawtooth {

TimelineOverview overviewOf(const LiveTimeline& timeline);
TimelineFrame frameOf(const LiveTimeline& timeline, const TimelineRequest& request);

}  // namespace sawtooth
