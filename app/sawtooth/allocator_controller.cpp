#include "app/sawtooth/allocator_controller.h"

#include "core/analysis/allocator_replay.h"
#include "core/analysis/live_bytes.h"
#include "core/analysis/module_band.h"
#include "core/analysis/module_table.h"
#include "core/analysis/segment_map.h"

namespace sawtooth::app {

AllocatorController::AllocatorController(JobRunner& jobs, QString slot_prefix, Views views, QObject* parent)
    : QObject(parent), jobs_(jobs), slot_prefix_(std::move(slot_prefix)), views_(views) {
  connect(views_.state, &views::AllocatorStateView::positionRequested, this, &AllocatorController::requestPosition);
  connect(views_.fragmentation, &views::FragmentationChart::positionClicked, this, [this](qint64 position) {
    views_.state->setPosition(position);
    requestPosition(position);
    requestLiveBytes(position);
    requestModules(position);
  });
  if (views_.timeline) {
    connect(views_.timeline, &views::TimelineChart::eventHovered, this, &AllocatorController::followTimeline);
    connect(views_.timeline, &views::TimelineChart::windowChanged, this, &AllocatorController::syncWithTimeline);
  }
}

void AllocatorController::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  // The older trace's jobs are dropped: the replay and live bytes by superseding, the map here.
  jobs_.cancel(slot("map"));
  analysis_ = std::move(analysis);
  history_.reset();
  pending_.reset();
  map_running_ = false;
  if (!analysis_) {
    jobs_.cancel(slot("replay"));
    jobs_.cancel(slot("live"));
    jobs_.cancel(slot("modules"));
    jobs_.cancel(slot("band"));
    if (views_.band) views_.band->setBand(nullptr);
    return;
  }
  auto trace = analysis_->sharedTrace();
  device_ = static_cast<int16_t>(largestPeakDevice(*analysis_));  // from the peaks: no pass over the events here
  views_.state->setMessage(tr("Replaying the allocator…"));
  views_.live->setMessage(tr("Finding what is alive at the peak…"));
  if (views_.modules) views_.modules->setMessage(tr("Finding which modules hold the peak…"));
  jobs_.run<AllocatorReplay>(
      slot("replay"), tr("Replaying the allocator"), this,
      [trace, device = device_](Progress& p) { return replayAllocator(trace, device, &p); },
      [this](AllocatorReplay r) {
        history_ = r.history;
        views_.fragmentation->setSeries(r.fragmentation);
        views_.fragmentation->show();
        syncWithTimeline();
        views_.state->setEventCount(static_cast<qint64>(history_->events().size()));
        views_.state->setPosition(r.open_at);
        requestPosition(r.open_at);
      },
      [this](const QString& error) {
        views_.state->setMessage(tr("No allocator state to show: %1").arg(error));
        views_.fragmentation->hide();
      });
  requestLiveBytes(std::nullopt);
  requestModules(std::nullopt);
  requestBand();
}

void AllocatorController::requestBand() {
  if (!analysis_ || !views_.band) return;
  jobs_.run<std::shared_ptr<const ModuleBand>>(
      slot("band"), tr("Finding the model's top-level blocks"), this,
      [analysis = analysis_, device = device_](Progress&) -> Result<std::shared_ptr<const ModuleBand>> {
        return std::make_shared<const ModuleBand>(moduleBand(*analysis, device));
      },
      [this](std::shared_ptr<const ModuleBand> band) {
        views_.band->setBand(std::move(band));
        syncWithTimeline();
      },
      [](const QString&) {});
}

void AllocatorController::requestPosition(qint64 position) {
  if (!history_) return;
  pending_ = position;
  if (!map_running_) startMap();
}

void AllocatorController::startMap() {
  if (!pending_ || !history_) return;
  const qint64 position = *pending_;
  pending_.reset();
  map_running_ = true;
  auto trace = analysis_->sharedTrace();
  auto history = history_;
  jobs_.run<std::shared_ptr<const SegmentMap>>(
      slot("map"), tr("Drawing the allocator's segments"), this,
      [trace, history, position](Progress&) -> Result<std::shared_ptr<const SegmentMap>> {
        return std::make_shared<const SegmentMap>(segmentMapAt(*trace, *history, position));
      },
      [this](std::shared_ptr<const SegmentMap> map) {
        map_running_ = false;
        if (!pending_) views_.state->setMap(map);  // a newer request keeps the scrubber where the user put it
        else views_.state->segmentMap()->setMap(map);
        views_.fragmentation->setMarker(map->state.position);
        startMap();
      },
      [this](const QString& error) {
        map_running_ = false;
        views_.state->setMessage(error);
        startMap();
      });
}

void AllocatorController::requestLiveBytes(std::optional<qint64> position) {
  if (!analysis_) return;
  auto trace = analysis_->sharedTrace();
  std::optional<int64_t> at;
  if (position) at = *position;
  jobs_.run<std::shared_ptr<const LiveBytes>>(
      slot("live"), tr("Finding the live bytes by call site"), this,
      [trace, device = device_, at](Progress&) -> Result<std::shared_ptr<const LiveBytes>> {
        return std::make_shared<const LiveBytes>(liveBytesAt(*trace, device, at));
      },
      [this](std::shared_ptr<const LiveBytes> live) { views_.live->setLiveBytes(std::move(live)); },
      [this](const QString& error) { views_.live->setMessage(error); });
}

void AllocatorController::requestModules(std::optional<qint64> position) {
  if (!analysis_ || !views_.modules) return;
  auto trace = analysis_->sharedTrace();
  std::optional<int64_t> at;
  if (position) at = *position;
  jobs_.run<std::shared_ptr<const ModulesAt>>(
      slot("modules"), tr("Finding the bytes each module holds"), this,
      [trace, device = device_, at](Progress&) -> Result<std::shared_ptr<const ModulesAt>> {
        return std::make_shared<const ModulesAt>(modulesAt(*trace, device, at));
      },
      [this](std::shared_ptr<const ModulesAt> modules) { views_.modules->setModules(std::move(modules)); },
      [this](const QString& error) { views_.modules->setMessage(error); });
}

void AllocatorController::followTimeline(qint64 event) {
  if (!history_ || event < 0 || !views_.state->followsTimeline()) return;
  const qint64 position = allocatorPositionAt(*history_, static_cast<uint64_t>(event));
  views_.state->setPosition(position);
  requestPosition(position);
}

void AllocatorController::syncWithTimeline() {
  if (views_.timeline && views_.band && views_.band->band()) {
    const ZoomWindow& w = views_.timeline->window();
    const QRectF plot = views_.timeline->chart()->plotArea();
    views_.band->setPlotEdges(views_.timeline->mapFromScene(plot.topLeft()).x(),
                              views_.timeline->mapFromScene(plot.topRight()).x());
    views_.band->setWindow(w.lo(), w.hi(), views_.timeline->xAxisByTime());
  }
  if (!views_.timeline || (!views_.fragmentation->series() && !views_.fragmentation->onDemand())) return;
  if (views_.fragmentation->xAxisByTime() != views_.timeline->xAxisByTime())
    views_.fragmentation->setXAxisByTime(views_.timeline->xAxisByTime());
  const ZoomWindow& w = views_.timeline->window();
  views_.fragmentation->setWindow(w.lo(), w.hi());
}

}  // namespace sawtooth::app
