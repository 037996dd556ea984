#include "app/sawtooth/multi_summary_timeline.h"

#include <algorithm>
#include <optional>

namespace sawtooth::app {

std::vector<MultiSummaryTimeline::Member> MultiSummaryTimeline::members() const {
  std::lock_guard lock(mutex_);
  return members_;
}

size_t MultiSummaryTimeline::files() const {
  std::lock_guard lock(mutex_);
  return members_.size();
}

Status MultiSummaryTimeline::follow(const std::vector<File>& files) {
  std::lock_guard polling(poll_mutex_);
  std::vector<Member> before = members();
  std::vector<Member> after;
  std::optional<Error> missing;
  for (const File& file : files) {
    auto open = std::find_if(before.begin(), before.end(), [&](const Member& m) { return m.file.path == file.path; });
    if (open != before.end()) {
      open->file = file;  // its label may have come since
      open->part.label = file.label;
      after.push_back(std::move(*open));
      continue;
    }
    auto opened = SummaryTimeline::openGrowing(file.path, ReadLimits{});
    if (!opened) {
      if (!missing) missing = opened.error();
      continue;
    }
    after.push_back(Member{file, std::move(*opened), TimelinePart{file.label, {}, {}}});
  }
  {
    std::lock_guard lock(mutex_);
    members_ = std::move(after);
  }
  if (missing) return *missing;
  return Ok{};
}

Result<TimelineOverview> MultiSummaryTimeline::refresh() {
  std::lock_guard polling(poll_mutex_);
  std::vector<Member> now = members();
  for (Member& m : now) {
    auto overview = m.timeline->refresh();
    if (!overview) return overview.error();
    m.part.overview = std::move(*overview);
  }
  std::vector<TimelinePart> parts;
  {
    std::lock_guard lock(mutex_);
    for (Member& m : now) {
      m.part.ids.clear();
      for (const TimelineOverview::Device& d : m.part.overview.devices)
        m.part.ids.emplace_back(d.device, ids_.idOf(m.file.source, d.device));
      parts.push_back(m.part);
    }
    members_ = std::move(now);  // only follow() changes them otherwise, and it waits for this
  }
  return mergedOverview(parts);
}

Result<TimelineFrame> MultiSummaryTimeline::frame(const TimelineRequest& request) {
  const std::vector<Member> now = members();
  std::vector<PartFrame> frames;
  for (const Member& m : now) {
    const auto own = partRequest(m.part, request);
    if (!own) continue;
    auto frame = m.timeline->frame(*own);
    if (!frame) return frame.error();
    frames.push_back(PartFrame{&m.part, std::move(*frame)});
  }
  return mergedFrame(request, std::move(frames));
}

}  // namespace sawtooth::app
