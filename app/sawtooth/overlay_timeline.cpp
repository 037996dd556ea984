#include "app/sawtooth/overlay_timeline.h"

#include "core/analysis/summary_source.h"
#include "core/io/event_pages.h"
#include "core/io/native_summary_source.h"

namespace sawtooth::app {
namespace {

constexpr double kQuerySeconds = 60;  // as a tab's own timeline

}  // namespace

Result<std::shared_ptr<OverlayTimeline>> OverlayTimeline::open(const Side& a, const Side& b, Alignment alignment,
                                                               const ReadLimits& limits, Progress& progress) {
  std::shared_ptr<OverlayTimeline> out(new OverlayTimeline);
  auto side = [&](const Side& s, Progress& p) -> Result<OverlaySide> {
    OverlaySide o;
    o.name = s.name;
    if (s.analysis) {
      auto source = summary::MemorySource::build(s.analysis->trace());
      if (!source) return source.error();
      o.source = std::shared_ptr<summary::SummarySource>(std::move(*source));
      o.tables = s.analysis->sharedTrace();
      o.steps = findStepStarts(s.analysis->trace());
      out->kept_.push_back(s.analysis);
      return o;
    }
    if (!s.timeline) return Error{s.name + ": not read yet"};
    auto file = s.timeline->openSource();
    if (!file) return file.error();
    (*file)->setQueryDeadline(kQuerySeconds);
    out->files_.push_back(*file);
    o.source = *file;
    o.tables = s.tables;
    if (!o.tables) {  // the tab has not read them yet
      auto pages = EventPages::open(s.path, limits);
      if (!pages) return pages.error();
      o.tables = (*pages)->tables();
    }
    if (p.cancelled()) return Error{"cancelled"};
    return o;
  };
  Progress first = progress.sub(0, 300), second = progress.sub(300, 600), rest = progress.sub(600, 1000);
  auto oa = side(a, first);
  if (!oa) return oa.error();
  auto ob = side(b, second);
  if (!ob) return ob.error();
  auto comparison = overlayTraces(*oa, *ob, alignment, &rest);
  if (!comparison) return comparison.error();
  out->comparison_ = std::move(*comparison);
  return out;
}

Result<TimelineFrame> OverlayTimeline::frame(const TimelineRequest& request) {
  std::lock_guard lock(mutex_);
  for (const auto& f : files_) f->setQueryDeadline(kQuerySeconds);
  return frameOf(*comparison_.model, request);
}

}  // namespace sawtooth::app
