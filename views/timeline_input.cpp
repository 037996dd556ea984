// TimelineChart's input: rubber-band and wheel zoom, pan (right or middle drag, arrow keys), reset
// (double click, Home, 0), and the hover that shows the event under the pointer.

#include <QMouseEvent>
#include <cmath>

#include "views/timeline_chart.h"
#include "views/timeline_hover.h"

namespace sawtooth::views {

double TimelineChart::dataXAt(const QPointF& view_pos) const {
  if (!anchorSeries()) return 0;
  const QPointF scene = mapToScene(view_pos.toPoint());
  const QPointF in_chart = chart()->mapFromScene(scene);
  return fromDisplayX(chart()->mapToValue(in_chart, anchorSeries()).x());
}

void TimelineChart::showHover(const QPoint& view_pos) {
  if (!analysis_ || lines_.empty()) return;
  const QPointF in_chart = chart()->mapFromScene(mapToScene(view_pos));
  if (!chart()->plotArea().contains(in_chart)) return hideHover();
  const double x = dataXAt(view_pos);
  const double y_bytes = chart()->mapToValue(in_chart, anchorSeries()).y() * y_unit_.bytes;
  // Of each shown device's nearest allocator event, the one whose allocated value is closest to
  // the pointer. The point found is passed on: no further search for it.
  const DeviceAnalysis* best_device = nullptr;
  AxisPoint best;
  double best_dy = INFINITY;
  for (const auto& d : analysis_->devices()) {
    if (!deviceShown(d->device)) continue;
    const auto p = d->nearestAllocatorPoint(x, by_time_);
    if (!p) continue;
    const Series& a = d->series.allocated;
    const double v = a.axis == d->series.allocator ? static_cast<double>(a.value[p->point]) : 0;
    if (std::fabs(v - y_bytes) < best_dy) best_dy = std::fabs(v - y_bytes), best = *p, best_device = d.get();
  }
  if (!best_device) return hideHover();
  const auto details = eventDetails(*analysis_, best.event, best.point);
  if (!details) return hideHover();
  hover_->show(chartPosition(best.x, 0).x(), chart()->plotArea(), view_pos, eventDetailsHtml(*details));
  emit eventHovered(static_cast<qint64>(best.event));
}

void TimelineChart::hideHover() {
  if (hover_) hover_->hide();
}

bool TimelineChart::viewportEvent(QEvent* event) {
  // The scene would answer a resting pointer's tool-tip request by hiding tooltips; the hover
  // panel is ours and stays until the pointer moves off the event.
  if (event->type() == QEvent::ToolTip) return true;
  return QChartView::viewportEvent(event);
}

void TimelineChart::wheelEvent(QWheelEvent* event) {
  if (!hasData()) return;
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoomAround(dataXAt(event->position()), std::pow(0.8, steps));
  event->accept();
}

bool TimelineChart::onLegend(const QPoint& view_pos) const {
  const QLegend* legend = chart()->legend();
  return legend->isVisible() && legend->sceneBoundingRect().contains(mapToScene(view_pos));
}

void TimelineChart::mousePressEvent(QMouseEvent* event) {
  // A click on the legend is the legend's (its entries show and hide what they stand for).
  if (!hasData() || onLegend(event->pos())) return QChartView::mousePressEvent(event);
  drag_origin_ = event->pos();
  if (event->button() == Qt::LeftButton) {
    drag_ = Drag::Zoom;
    rubber_->setGeometry(QRect(drag_origin_, QSize()));
    rubber_->show();
  } else if (event->button() == Qt::RightButton || event->button() == Qt::MiddleButton) {
    drag_ = Drag::Pan;
    pan_origin_lo_ = window_.lo();
    setCursor(Qt::ClosedHandCursor);
  }
  hideHover();
  event->accept();
}

void TimelineChart::mouseMoveEvent(QMouseEvent* event) {
  switch (drag_) {
    case Drag::Zoom: {
      const QRectF plot = chart()->plotArea();
      const QPoint top_left = mapFromScene(chart()->mapToScene(plot.topLeft()));
      const QPoint bottom = mapFromScene(chart()->mapToScene(plot.bottomRight()));
      rubber_->setGeometry(QRect(QPoint(std::min(drag_origin_.x(), event->pos().x()), top_left.y()),
                                 QPoint(std::max(drag_origin_.x(), event->pos().x()), bottom.y())));
      break;
    }
    case Drag::Pan: {
      const double per_pixel = window_.width() / std::max(1.0, chart()->plotArea().width());
      window_.zoomTo(pan_origin_lo_, pan_origin_lo_ + window_.width());
      window_.pan(-(event->pos().x() - drag_origin_.x()) * per_pixel);
      applyWindow();
      break;
    }
    case Drag::None: showHover(event->pos()); break;
  }
  event->accept();
}

void TimelineChart::mouseReleaseEvent(QMouseEvent* event) {
  if (drag_ == Drag::None) return QChartView::mouseReleaseEvent(event);
  if (drag_ == Drag::Zoom) {
    rubber_->hide();
    if (std::abs(event->pos().x() - drag_origin_.x()) > 4) zoomTo(dataXAt(drag_origin_), dataXAt(event->pos()));
  }
  if (drag_ == Drag::Pan) unsetCursor();
  drag_ = Drag::None;
  event->accept();
}

void TimelineChart::mouseDoubleClickEvent(QMouseEvent* event) {
  if (onLegend(event->pos())) return event->accept();  // the press toggled the entry already
  resetZoom();
  event->accept();
}

void TimelineChart::keyPressEvent(QKeyEvent* event) {
  if (!hasData()) return QChartView::keyPressEvent(event);
  const double centre = (window_.lo() + window_.hi()) / 2;
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomAround(centre, 0.5); break;
    case Qt::Key_Minus: zoomAround(centre, 2.0); break;
    case Qt::Key_Left: pan(-window_.width() / 4); break;
    case Qt::Key_Right: pan(window_.width() / 4); break;
    case Qt::Key_Home:
    case Qt::Key_End:
    case Qt::Key_0: resetZoom(); break;
    default: return QChartView::keyPressEvent(event);
  }
  event->accept();
}

void TimelineChart::leaveEvent(QEvent* event) {
  hideHover();
  QChartView::leaveEvent(event);
}

}  // namespace sawtooth::views
