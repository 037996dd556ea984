#include "views/polyline_item.h"

#include <QChart>
#include <QPainter>
#include <cmath>

namespace sawtooth::views {

PolylineItem::PolylineItem(QGraphicsItem* parent) : QGraphicsItem(parent) {}

void PolylineItem::setLines(std::vector<Line> lines) {
  lines_ = std::move(lines);
  drawn_.assign(lines_.size(), {});  // drawn once placed (the charts place them next)
  update();
}

void PolylineItem::place(const QRectF& plot, QPointF origin, QPointF scale) {
  if (plot != plot_) prepareGeometryChange();
  plot_ = plot;
  drawn_.assign(lines_.size(), {});
  for (size_t i = 0; i < lines_.size(); ++i) {
    QPolygonF piece;
    piece.reserve(lines_[i].values.size());
    for (const QPointF& v : lines_[i].values) {
      const QPointF p(origin.x() + v.x() * scale.x(), origin.y() + v.y() * scale.y());
      if (std::isfinite(p.x()) && std::isfinite(p.y())) {
        piece.append(p);
      } else if (!piece.isEmpty()) {
        drawn_[i].push_back(std::move(piece));
        piece = QPolygonF();
      }
    }
    if (!piece.isEmpty()) drawn_[i].push_back(std::move(piece));
  }
  update();
}

void PolylineItem::place(QChart& chart, QAbstractSeries* anchor) {
  if (!anchor) return place(QRectF(), {}, {});
  // Two points give the mapping of every other.
  const QPointF p0 = chart.mapToPosition(QPointF(0, 0), anchor), p1 = chart.mapToPosition(QPointF(1, 1), anchor);
  place(chart.plotArea(), p0, p1 - p0);
}

void PolylineItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  if (plot_.isEmpty()) return;
  painter->save();
  painter->setClipRect(plot_);
  painter->setBrush(Qt::NoBrush);
  for (size_t i = 0; i < lines_.size(); ++i) {
    if (!lines_[i].visible) continue;
    const QPen& pen = lines_[i].pen;
    painter->setPen(pen);
    // A solid line as its segments, as Qt Charts draws one: the raster engine strokes a polyline
    // with its joins as one path (about twice the time); a dashed one whole, its pattern continuous.
    const bool segments = pen.style() == Qt::SolidLine;
    for (const QPolygonF& piece : drawn_[i]) {
      if (piece.size() == 1) {
        painter->drawPoint(piece.front());
      } else if (segments) {
        segments_.clear();
        for (qsizetype k = 1; k < piece.size(); ++k) segments_.append(QLineF(piece[k - 1], piece[k]));
        painter->drawLines(segments_);
      } else {
        painter->drawPolyline(piece);
      }
    }
  }
  painter->restore();
}

}  // namespace sawtooth::views
