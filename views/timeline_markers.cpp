#include "views/timeline_markers.h"

#include <QBrush>
#include <QFont>
#include <QPen>
#include <algorithm>

namespace sawtooth::views {
namespace {

constexpr qreal kMarkerZ = 40;  // above the series
constexpr qreal kMarkerSize = 9;

}  // namespace

TimelineMarkers::~TimelineMarkers() = default;  // the items belong to the chart

void TimelineMarkers::clear() {
  for (Items& it : items_) {
    delete it.marker;
    delete it.label;
  }
  items_.clear();
}

void TimelineMarkers::setMarkers(std::vector<TimelineMarker> markers) {
  clear();
  markers_ = std::move(markers);
  for (const TimelineMarker& m : markers_) {
    Items it;
    if (m.shape == TimelineMarker::Shape::Triangle) {
      const qreal s = kMarkerSize * 0.8;
      it.marker = new QGraphicsPolygonItem(QPolygonF({{0, -s}, {s, s * 0.8}, {-s, s * 0.8}}), chart_);
    } else {
      it.marker = new QGraphicsEllipseItem(-kMarkerSize / 2, -kMarkerSize / 2, kMarkerSize, kMarkerSize, chart_);
    }
    it.marker->setBrush(m.color);
    it.marker->setPen(QPen(Qt::white, 1.2));
    it.marker->setZValue(kMarkerZ);
    it.marker->hide();
    it.label = new QGraphicsSimpleTextItem(m.label, chart_);
    QFont font = it.label->font();
    font.setBold(true);
    it.label->setFont(font);
    it.label->setBrush(m.color);
    it.label->setZValue(kMarkerZ + 1);
    it.label->hide();
    items_.push_back(it);
  }
}

void TimelineMarkers::place(const QRectF& plot, const std::function<QPointF(double, double)>& to_position) {
  std::vector<QRectF> taken;
  for (size_t i = 0; i < markers_.size(); ++i) {
    const TimelineMarker& m = markers_[i];
    Items& it = items_[i];
    const QPointF p = to_position(m.x, m.bytes);
    const bool inside = plot.adjusted(-0.5, -0.5, 0.5, 0.5).contains(p);
    it.marker->setVisible(inside);
    it.label->setVisible(inside && m.show_label);
    if (!inside) continue;
    it.marker->setPos(p);
    if (!m.show_label) continue;
    // Above and right of the marker, kept inside the plot; moved up past labels already placed.
    const QRectF r = it.label->boundingRect();
    QPointF at(p.x() + 7, p.y() - r.height() - 2);
    if (at.x() + r.width() > plot.right()) at.setX(p.x() - 7 - r.width());
    at.setX(std::max(at.x(), plot.left() + 1));
    at.setY(std::max(at.y(), plot.top() + 1));
    for (bool moved = true; moved;) {
      moved = false;
      for (const QRectF& other : taken)
        if (QRectF(at, r.size()).intersects(other)) {
          at.setY(other.bottom() + 1);
          moved = true;
        }
    }
    it.label->setPos(at);
    taken.emplace_back(at, r.size());
  }
}

bool TimelineMarkers::isShown(size_t i) const { return i < items_.size() && items_[i].marker->isVisible(); }

QRectF TimelineMarkers::labelRect(size_t i) const {
  if (i >= items_.size() || !items_[i].label->isVisible()) return {};
  return items_[i].label->sceneBoundingRect();
}

}  // namespace sawtooth::views
