#include "app/sawtooth/allocator_controller.h"

#include <QFutureWatcher>
#include <QtConcurrent>
#include <algorithm>

#include "core/analysis/fragmentation_series.h"
#include "core/analysis/live_allocations.h"
#include "core/analysis/live_bytes.h"
#include "core/analysis/segment_map.h"
#include "core/analysis/trace_diff.h"

namespace sawtooth::app {
namespace {

struct Replay {
  std::shared_ptr<const AllocatorHistory> history;
  std::shared_ptr<const FragmentationSeries> fragmentation;
  int64_t open_at = -1;  // the first out-of-memory event, else the peak
  QString error;
};

// The device whose allocated bytes peak highest (the one a user asks about first).
int16_t largestDevice(const TraceAnalysis& analysis) {
  int16_t best = 0;
  int64_t top = -1;
  for (const auto& d : analysis.devices()) {
    const int64_t peak = scopePeak(analysis.trace(), d->device).bytes;
    if (peak > top) top = peak, best = d->device;
  }
  return best;
}

Replay replay(std::shared_ptr<const Trace> trace, int16_t device) {
  Replay out;
  auto history = AllocatorHistory::build(*trace, device);
  if (!history.ok()) {
    out.error = QString::fromStdString(history.error().message);
    return out;
  }
  out.history = std::make_shared<const AllocatorHistory>(std::move(history.value()));
  out.fragmentation = std::make_shared<const FragmentationSeries>(trace, out.history);
  out.open_at = out.history->report().peak_position;
  const auto& events = out.history->events();
  for (size_t i = 0; i < events.size(); ++i)
    if (trace->events.action()[events[i]] == Action::Oom) {
      out.open_at = static_cast<int64_t>(i);
      break;
    }
  return out;
}

}  // namespace

AllocatorController::AllocatorController(Views views, QObject* parent) : QObject(parent), views_(views) {
  connect(views_.state, &views::AllocatorStateView::positionRequested, this, &AllocatorController::requestPosition);
  connect(views_.fragmentation, &views::FragmentationChart::positionClicked, this, [this](qint64 position) {
    views_.state->setPosition(position);
    requestPosition(position);
    requestLiveBytes(position);
  });
  if (views_.timeline) {
    connect(views_.timeline, &views::TimelineChart::eventHovered, this, &AllocatorController::followTimeline);
    connect(views_.timeline, &views::TimelineChart::windowChanged, this, &AllocatorController::syncWithTimeline);
  }
}

template <typename T, typename Work, typename Done>
void AllocatorController::run(Work work, Done done) {
  auto* watcher = new QFutureWatcher<T>(this);
  ++jobs_;
  const quint64 generation = generation_;
  connect(watcher, &QFutureWatcher<T>::finished, this, [this, watcher, done, generation] {
    watcher->deleteLater();
    --jobs_;
    if (generation == generation_) done(watcher->result());
    if (jobs_ == 0) emit idle();
  });
  watcher->setFuture(QtConcurrent::run(std::move(work)));
}

void AllocatorController::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  ++generation_;
  analysis_ = std::move(analysis);
  history_.reset();
  pending_.reset();
  map_running_ = false;
  if (!analysis_) return;
  auto trace = analysis_->sharedTrace();
  device_ = largestDevice(*analysis_);
  views_.state->setMessage(tr("Replaying the allocator…"));
  views_.live->setMessage(tr("Finding what is alive at the peak…"));
  const int16_t device = device_;
  run<Replay>([trace, device] { return replay(trace, device); }, [this](Replay r) {
    if (!r.history) {
      views_.state->setMessage(tr("No allocator state to show: %1").arg(r.error));
      views_.fragmentation->hide();
      return;
    }
    history_ = r.history;
    views_.fragmentation->setSeries(r.fragmentation);
    views_.fragmentation->show();
    syncWithTimeline();
    views_.state->setEventCount(static_cast<qint64>(history_->events().size()));
    const qint64 at = r.open_at;
    views_.state->setPosition(at);
    requestPosition(at);
  });
  requestLiveBytes(std::nullopt);
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
  run<std::shared_ptr<const SegmentMap>>(
      [trace, history, position] { return std::make_shared<const SegmentMap>(segmentMapAt(*trace, *history, position)); },
      [this](std::shared_ptr<const SegmentMap> map) {
        map_running_ = false;
        if (!pending_) views_.state->setMap(map);  // a newer request overrides the scrubber's position
        else views_.state->segmentMap()->setMap(map);
        views_.fragmentation->setMarker(map->state.position);
        startMap();
      });
}

void AllocatorController::requestLiveBytes(std::optional<qint64> position) {
  if (!analysis_) return;
  auto trace = analysis_->sharedTrace();
  const int16_t device = device_;
  std::optional<int64_t> at;
  if (position) at = *position;
  run<std::shared_ptr<const LiveBytes>>([trace, device, at] { return std::make_shared<const LiveBytes>(liveBytesAt(*trace, device, at)); },
                                        [this](std::shared_ptr<const LiveBytes> live) { views_.live->setLiveBytes(live); });
}

void AllocatorController::followTimeline(qint64 event) {
  if (!history_ || event < 0 || !views_.state->followsTimeline()) return;
  const auto& events = history_->events();
  const auto position = static_cast<qint64>(std::upper_bound(events.begin(), events.end(), static_cast<uint64_t>(event)) - events.begin()) - 1;
  views_.state->setPosition(position);
  requestPosition(position);
}

void AllocatorController::syncWithTimeline() {
  if (!views_.timeline || !views_.fragmentation->series()) return;
  if (views_.fragmentation->xAxisByTime() != views_.timeline->xAxisByTime())
    views_.fragmentation->setXAxisByTime(views_.timeline->xAxisByTime());
  const ZoomWindow& w = views_.timeline->window();
  views_.fragmentation->setWindow(w.lo(), w.hi());
}

void runSiteDiff(views::DiffSitesView* view, std::shared_ptr<const Trace> a, QString name_a, std::shared_ptr<const Trace> b,
                 QString name_b) {
  view->setMessage(QObject::tr("Matching the call sites of both traces…"));
  using Out = std::pair<std::shared_ptr<const TraceDiff>, QString>;
  auto* watcher = new QFutureWatcher<Out>(view);
  QObject::connect(watcher, &QFutureWatcher<Out>::finished, view, [view, watcher] {
    watcher->deleteLater();
    const Out out = watcher->result();
    if (out.first) view->setDiff(out.first);
    else view->setMessage(out.second);
  });
  watcher->setFuture(QtConcurrent::run([a, b, name_a, name_b]() -> Out {
    auto diff = diffTraces(*a, name_a.toStdString(), *b, name_b.toStdString());
    if (!diff.ok()) return {nullptr, QString::fromStdString(diff.error().message)};
    return {std::make_shared<const TraceDiff>(std::move(*diff)), {}};
  }));
}

}  // namespace sawtooth::app
