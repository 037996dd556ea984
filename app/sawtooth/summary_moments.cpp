#include "app/sawtooth/summary_moments.h"

namespace sawtooth::app {
namespace {

struct MomentViews {
  int64_t position = -1;
  int64_t t_ns = 0;
  std::shared_ptr<const SegmentMap> map;  // null: no segment map (why_no_map)
  std::string why_no_map;
  std::shared_ptr<const LiveBytes> live;
  std::shared_ptr<const ModulesAt> modules;
};

}  // namespace

SummaryMoments::SummaryMoments(JobRunner& jobs, QString slot_prefix, Views views, QObject* parent)
    : QObject(parent), jobs_(jobs), slot_prefix_(std::move(slot_prefix)), views_(views) {
  connect(views_.state, &views::AllocatorStateView::positionRequested, this, &SummaryMoments::requestPosition);
  if (views_.fragmentation) {
    connect(views_.fragmentation, &views::FragmentationChart::frameRequested, this, &SummaryMoments::requestFragmentation);
    connect(views_.fragmentation, &views::FragmentationChart::xClicked, this, &SummaryMoments::fragmentationClicked);
  }
}

void SummaryMoments::showFragmentation() {
  if (!views_.fragmentation) return;
  jobs_.run<std::optional<FragmentationExtent>>(
      slot_prefix_ + QStringLiteral(" fragmentation extent"), tr("Reading the fragmentation"), this,
      [timeline = timeline_, device = device_](Progress&) { return timeline->fragmentationExtent(device); },
      [this](std::optional<FragmentationExtent> extent) {
        if (!extent || !timeline_) return;  // a file from before the summaries kept it: no chart
        views_.fragmentation->setOnDemand(*extent);
        if (marker_) views_.fragmentation->setMarkerAt(marker_->first, marker_->second);
        if (views_.timeline) {
          views_.fragmentation->setXAxisByTime(views_.timeline->xAxisByTime());
          views_.fragmentation->setWindow(views_.timeline->window().lo(), views_.timeline->window().hi());
        }
        views_.fragmentation->show();
      },
      [](const QString&) {});
}

void SummaryMoments::requestFragmentation(const FragmentationRequest& request) {
  if (!timeline_ || !views_.fragmentation->onDemand()) return;
  jobs_.run<FragmentationFrame>(
      slot_prefix_ + QStringLiteral(" fragmentation"), tr("Drawing the fragmentation"), this,
      [timeline = timeline_, tables = tables_, request](Progress&) { return timeline->fragmentation(request, tables.get()); },
      [this](FragmentationFrame frame) { views_.fragmentation->setFrame(std::move(frame)); },
      [](const QString&) {});
}

void SummaryMoments::fragmentationClicked(double x) {
  if (!timeline_) return;
  jobs_.run<int64_t>(
      slot_prefix_ + QStringLiteral(" fragmentation click"), tr("Finding the allocator event"), this,
      [timeline = timeline_, device = device_, x, by_time = views_.fragmentation->xAxisByTime()](Progress&) {
        return timeline->fragmentationPositionAt(device, x, by_time);
      },
      [this](int64_t position) {
        views_.state->setPosition(std::max<int64_t>(position, 0));
        requestPosition(std::max<int64_t>(position, 0));
      },
      [](const QString&) {});
}

void SummaryMoments::start(std::shared_ptr<SummaryTimeline> timeline, std::shared_ptr<const Trace> tables,
                           DeviceId device, int64_t events) {
  jobs_.cancel(slot());
  running_ = false;
  timeline_ = std::move(timeline);
  tables_ = std::move(tables);
  device_ = device;
  marker_.reset();
  views_.state->setEventCount(events);
  views_.state->setMessage(tr("Replaying the allocator from the file's nearest stored state…"));
  views_.live->setMessage(tr("Finding what is alive at the peak…"));
  views_.modules->setMessage(tr("Finding which modules hold the peak…"));
  pending_ = std::optional<qint64>();
  startNext();
  showFragmentation();
}

void SummaryMoments::stop() {
  jobs_.cancel(slot());
  jobs_.cancel(slot_prefix_ + QStringLiteral(" fragmentation extent"));
  jobs_.cancel(slot_prefix_ + QStringLiteral(" fragmentation"));
  jobs_.cancel(slot_prefix_ + QStringLiteral(" fragmentation click"));
  running_ = false;
  pending_.reset();
  marker_.reset();
  timeline_.reset();
  tables_.reset();
}

void SummaryMoments::requestPosition(qint64 position) {
  if (!timeline_) return;
  pending_ = std::optional<qint64>(position);
  if (!running_) startNext();
}

void SummaryMoments::startNext() {
  if (!pending_ || !timeline_) return;
  std::optional<int64_t> at;
  if (*pending_) at = **pending_;
  pending_.reset();
  running_ = true;
  jobs_.run<MomentViews>(
      slot(), tr("Replaying the allocator"), this,
      [timeline = timeline_, tables = tables_, device = device_, at](Progress& p) -> Result<MomentViews> {
        auto moment = timeline->moment(*tables, device, at, p);
        if (!moment) return moment.error();
        MomentViews out;
        out.position = moment->position;
        out.t_ns = moment->event ? moment->event->t_ns : 0;
        if (auto map = segmentMapOf(*tables, *moment)) out.map = std::make_shared<const SegmentMap>(std::move(*map));
        out.why_no_map = moment->why_no_state;
        out.live = std::make_shared<const LiveBytes>(liveBytesOf(*tables, *moment));
        auto modules = timeline->modules(*tables, *moment, p);
        if (!modules) return modules.error();
        out.modules = std::make_shared<const ModulesAt>(std::move(*modules));
        return out;
      },
      [this](MomentViews v) {
        running_ = false;
        if (v.map) {
          if (!pending_) views_.state->setMap(v.map);  // a newer request keeps the scrubber where the user put it
          else views_.state->segmentMap()->setMap(v.map);
        } else {
          views_.state->setMessage(tr("No segment map: %1").arg(QString::fromStdString(v.why_no_map)));
        }
        if (v.position >= 0) {
          marker_ = {v.position, static_cast<double>(v.t_ns)};  // for a chart still to come
          if (views_.fragmentation && views_.fragmentation->onDemand())
            views_.fragmentation->setMarkerAt(v.position, static_cast<double>(v.t_ns));
        }
        views_.live->setLiveBytes(std::move(v.live));
        views_.modules->setModules(std::move(v.modules));
        startNext();
      },
      [this](const QString& error) {
        running_ = false;
        views_.state->setMessage(error);
        views_.live->setMessage(error);
        views_.modules->setMessage(error);
        startNext();
      });
}

}  // namespace sawtooth::app
