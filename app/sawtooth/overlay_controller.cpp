#include "app/sawtooth/overlay_controller.h"

#include "app/sawtooth/reading_limits.h"
#include "views/qt_format.h"

namespace sawtooth::app {

OverlayController::OverlayController(JobRunner& jobs, views::CompareView* view, OverlayTimeline::Side a,
                                     OverlayTimeline::Side b)
    : QObject(view), jobs_(jobs), view_(view), a_(std::move(a)), b_(std::move(b)) {
  connect(view_, &views::CompareView::alignmentChanged, this, [this] { run(); });
  connect(view_->timeline(), &views::TimelineChart::frameRequested, this, &OverlayController::requestFrame);
}

QString OverlayController::slot(const char* what) const {
  return QStringLiteral("overlay %1 %2").arg(reinterpret_cast<quintptr>(view_), 0, 16).arg(QLatin1String(what));
}

void OverlayController::run() {
  const QString a = views::toQString(a_.name), b = views::toQString(b_.name);
  view_->setBusy(tr("Comparing %1 with %2 from their summaries…").arg(a, b));
  overlay_.reset();
  jobs_.run<std::shared_ptr<OverlayTimeline>>(
      slot("open"), tr("Comparing"), view_,
      [sa = a_, sb = b_, alignment = view_->alignment(), limits = readingLimitsFromSettings()](Progress& p) {
        return OverlayTimeline::open(sa, sb, alignment, limits, p);
      },
      [this](std::shared_ptr<OverlayTimeline> overlay) {
        overlay_ = std::move(overlay);
        const OverlayComparison& c = overlay_->comparison();
        view_->setOverlay(std::make_shared<const TimelineOverview>(c.overview), std::make_shared<const Table>(c.differences),
                          views::toQString(c.note), c.by_time);
      },
      [this](const QString& error) { view_->setFailed(error); });
}

void OverlayController::requestFrame(const TimelineRequest& request) {
  if (!overlay_) return;
  jobs_.run<TimelineFrame>(
      slot("frame"), tr("Drawing the comparison"), view_,
      [overlay = overlay_, request](Progress&) { return overlay->frame(request); },
      [this](TimelineFrame frame) { view_->timeline()->setFrame(std::move(frame)); },
      [this](const QString& error) { view_->timeline()->setFrameFailed(error); });
}

}  // namespace sawtooth::app
