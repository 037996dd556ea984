#include "app/sawtooth/summary_timeline.h"

#include <cstdint>

#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"

namespace sawtooth::app {
namespace {

// A frame (or an overview) that takes longer than this is a file no one should wait on.
constexpr double kQuerySeconds = 60;

}  // namespace

SummaryTimeline::~SummaryTimeline() = default;

Result<std::shared_ptr<SummaryTimeline>> SummaryTimeline::open(const std::string& path, const ReadLimits& limits, bool build,
                                                               Progress& progress) {
  std::string why;
  auto found = findSummaries(path, &why);
  if (!found) return found.error();
  std::optional<SummaryPlace> place = *found;
  if (!place) {
    if (!build) return std::shared_ptr<SummaryTimeline>();
    auto built = buildCachedSummaries(path, why, &progress);
    if (!built) return built.error();
    place = std::move(*built);
  }
  auto source = native::FileSummarySource::open(*place, limits);
  if (!source) return source.error();
  std::shared_ptr<SummaryTimeline> timeline(new SummaryTimeline);
  timeline->source_ = std::move(*source);
  timeline->model_ = std::make_unique<TimelineModel>(timeline->source_);
  timeline->why_cached_ = place->cached ? place->why_cached : std::string();
  timeline->place_ = *place;
  timeline->limits_ = limits;
  return timeline;
}

Result<std::shared_ptr<SummaryTimeline>> SummaryTimeline::openGrowing(const std::string& path, const ReadLimits& limits) {
  const SummaryPlace place{path, path, false, {}};
  auto source = native::FileSummarySource::open(place, limits);
  if (!source) return source.error();
  std::shared_ptr<SummaryTimeline> timeline(new SummaryTimeline);
  timeline->source_ = std::move(*source);
  timeline->model_ = std::make_unique<TimelineModel>(timeline->source_);
  timeline->place_ = place;
  timeline->limits_ = limits;
  return timeline;
}

Result<TimelineOverview> SummaryTimeline::refresh() {
  std::lock_guard lock(mutex_);
  source_->setQueryDeadline(kQuerySeconds);
  if (Status st = model_->refresh(); !st) return st.error();
  auto overview = overviewOf(*model_);
  if (!overview) return overview.error();
  events_ = overview->events;
  return overview;
}

Result<TimelineFrame> SummaryTimeline::frame(const TimelineRequest& request) {
  std::lock_guard lock(mutex_);
  source_->setQueryDeadline(kQuerySeconds);
  return frameOf(*model_, request);
}

Result<TimelineModel*> SummaryTimeline::fragmentationModel() {
  if (!fragmentation_model_) {
    auto source = native::FileSummarySource::open(place_, limits_);
    if (!source) return source.error();
    fragmentation_source_ = std::move(*source);
    fragmentation_model_ = std::make_unique<TimelineModel>(fragmentation_source_);
    fragmentation_events_ = UINT64_MAX;
  }
  fragmentation_source_->setQueryDeadline(kQuerySeconds);
  if (const uint64_t now = events_.load(); now != fragmentation_events_) {
    if (Status st = fragmentation_model_->refresh(); !st) return st.error();  // a recording that grew since
    fragmentation_events_ = now;
  }
  return fragmentation_model_.get();
}

Result<std::optional<FragmentationExtent>> SummaryTimeline::fragmentationExtent(DeviceId device) {
  std::lock_guard lock(fragmentation_mutex_);
  auto model = fragmentationModel();
  if (!model) return model.error();
  return sawtooth::fragmentationExtent(**model, device);
}

Result<FragmentationFrame> SummaryTimeline::fragmentation(const FragmentationRequest& request, const Trace* tables) {
  std::lock_guard lock(fragmentation_mutex_);
  auto model = fragmentationModel();
  if (!model) return model.error();
  return fragmentationFrame(**model, request, tables);
}

Result<int64_t> SummaryTimeline::fragmentationPositionAt(DeviceId device, double x, bool by_time) {
  std::lock_guard lock(fragmentation_mutex_);
  auto model = fragmentationModel();
  if (!model) return model.error();
  return sawtooth::fragmentationPositionAt(**model, device, x, by_time);
}

Result<SummaryMoment> SummaryTimeline::moment(const Trace& tables, DeviceId device, std::optional<int64_t> position,
                                              Progress& progress) {
  std::lock_guard lock(moment_mutex_);
  if (!moment_model_) {
    auto source = native::FileSummarySource::open(place_, limits_);
    if (!source) return source.error();
    moment_source_ = std::move(*source);
    moment_model_ = std::make_unique<TimelineModel>(moment_source_);
  }
  moment_source_->setQueryDeadline(kQuerySeconds);
  if (Status st = moment_model_->refresh(); !st) return st.error();  // a recording that ended since
  return momentFromSummaries(*moment_model_, tables, device, position, &progress);
}

Result<ModulesAt> SummaryTimeline::modules(const Trace& tables, const SummaryMoment& moment, Progress& progress) {
  std::lock_guard lock(moment_mutex_);
  if (!moment_model_) return Error{"no moment has been read"};
  moment_source_->setQueryDeadline(kQuerySeconds);
  return modulesWithStepCosts(*moment_model_, tables, moment, &progress, &step_costs_);
}

Result<std::vector<AllocatedTotal>> SummaryTimeline::allocatedTotals(DeviceId device, Progress& progress) {
  auto source = native::FileSummarySource::open(place_, limits_);
  if (!source) return source.error();
  return allocatedTotalsFromSummaries(**source, device, &progress);
}

Status SummaryTimeline::addWholeTraceFigures(const Trace& tables, TraceReport& report, Progress& progress) {
  auto source = native::FileSummarySource::open(place_, limits_);
  if (!source) return source.error();
  TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  if (Status st = model.refresh(); !st) return st;
  auto facts = wholeTraceFacts(model.source(), tables, &progress);
  if (!facts) return facts.error();
  return sawtooth::addWholeTraceFigures(report, model, tables, *facts, &progress);
}

Result<std::shared_ptr<native::FileSummarySource>> SummaryTimeline::openSource() const {
  auto source = native::FileSummarySource::open(place_, limits_);
  if (!source) return source.error();
  return std::shared_ptr<native::FileSummarySource>(std::move(*source));
}

Result<bool> SummaryTimeline::addIndexedOom(const Trace& tables, TraceReport& report, Progress& progress) {
  auto source = native::FileSummarySource::open(place_, limits_);
  if (!source) return source.error();
  TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  if (Status st = model.refresh(); !st) return st.error();
  auto facts = indexedOoms(model.source());
  if (!facts) return facts.error();
  if (!*facts) return false;
  if ((*facts)->first_oom) {
    auto post_mortem = oomPostMortem(model, tables, *(*facts)->first_oom, &progress);
    if (!post_mortem) return post_mortem.error();
    report.oom = std::move(post_mortem->report);
  }
  return true;
}

uint64_t estimatedMemoryToReadWhole(uint64_t file_bytes) { return file_bytes / 10 * 27; }

}  // namespace sawtooth::app
