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
  // Every marker first: a label is kept off the other markers as well as off the other labels.
  std::vector<QRectF> taken;
  std::vector<QPointF> at_point(markers_.size());
  std::vector<bool> inside(markers_.size());
  for (size_t i = 0; i < markers_.size(); ++i) {
    Items& it = items_[i];
    at_point[i] = to_position(markers_[i].x, markers_[i].bytes);
    inside[i] = plot.adjusted(-0.5, -0.5, 0.5, 0.5).contains(at_point[i]);
    it.marker->setVisible(inside[i]);
    it.label->setVisible(inside[i] && markers_[i].show_label);
    if (!inside[i]) continue;
    it.marker->setPos(at_point[i]);
    taken.push_back(it.marker->mapRectToParent(it.marker->boundingRect()).adjusted(-1, -1, 1, 1));
  }
  const QRectF room = plot.adjusted(1, 1, -1, -1);
  for (size_t i = 0; i < markers_.size(); ++i) {
    if (!inside[i] || !markers_[i].show_label) continue;
    Items& it = items_[i];
    const QPointF p = at_point[i];
    const QSizeF size = it.label->boundingRect().size();
    auto fits = [&](const QRectF& r) {
      if (!room.contains(r)) return false;
      for (const QRectF& other : taken)
        if (r.intersects(other)) return false;
      return true;
    };
    // Above right of the marker, else above left, below right, below left; failing all, stacked
    // above the labels in the way (moved into the plot).
    const QRectF candidates[] = {
        {QPointF(p.x() + 7, p.y() - size.height() - 2), size}, {QPointF(p.x() - 7 - size.width(), p.y() - size.height() - 2), size},
        {QPointF(p.x() + 7, p.y() + 4), size},                 {QPointF(p.x() - 7 - size.width(), p.y() + 4), size}};
    QRectF chosen;
    for (const QRectF& c : candidates)
      if (fits(c)) {
        chosen = c;
        break;
      }
    if (chosen.isNull()) {
      QPointF at = candidates[0].topLeft();
      if (at.x() + size.width() > room.right()) at.setX(candidates[1].left());
      at.setX(std::max(at.x(), room.left()));
      at.setY(std::max(at.y(), room.top()));
      for (bool moved = true; moved;) {
        moved = false;
        for (const QRectF& other : taken)
          if (QRectF(at, size).intersects(other)) {
            at.setY(other.bottom() + 1);
            moved = true;
          }
      }
      chosen = QRectF(at, size);
    }
    it.label->setPos(chosen.topLeft());
    taken.push_back(chosen);
  }
}

std::vector<QRectF> TimelineMarkers::markerRects() const {
  std::vector<QRectF> out;
  for (const Items& it : items_)
    if (it.marker->isVisible()) out.push_back(it.marker->sceneBoundingRect());
  return out;
}

std::vector<QRectF> TimelineMarkers::labelRects() const {
  std::vector<QRectF> out;
  for (const Items& it : items_)
    if (it.label->isVisible()) out.push_back(it.label->sceneBoundingRect());
  return out;
}

bool TimelineMarkers::isShown(size_t i) const { return i < items_.size() && items_[i].marker->isVisible(); }

QRectF TimelineMarkers::labelRect(size_t i) const {
  if (i >= items_.size() || !items_[i].label->isVisible()) return {};
  return items_[i].label->sceneBoundingRect();
}

}  // namespace sawtooth::views
