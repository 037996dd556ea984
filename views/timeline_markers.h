#pragma once
// Markers with labels on the timeline — each device's peak, each out-of-memory — drawn as scene
// items placed for the visible window: a marker outside the window (or below the y range) is
// hidden with its label, never left clipped at the plot's edge, and a label goes where it covers
// no other label and no other marker (above or below, right or left of its marker; two traces'
// peaks side by side, a peak beside its out-of-memory).

#include <QChart>
#include <QGraphicsEllipseItem>
#include <QGraphicsPolygonItem>
#include <QGraphicsSimpleTextItem>
#include <functional>
#include <vector>

namespace sawtooth::views {

struct TimelineMarker {
  enum class Shape { Dot, Triangle };
  double x = 0;      // data units (ns or event index)
  double bytes = 0;  // the value it marks
  QString label;
  QColor color;
  Shape shape = Shape::Dot;
  bool show_label = true;
};

class TimelineMarkers {
 public:
  explicit TimelineMarkers(QChart* chart) : chart_(chart) {}
  ~TimelineMarkers();

  void setMarkers(std::vector<TimelineMarker> markers);
  const std::vector<TimelineMarker>& markers() const { return markers_; }
  // `to_position` maps (x, bytes) to the chart's coordinates; markers outside `plot` are hidden.
  void place(const QRectF& plot, const std::function<QPointF(double x, double bytes)>& to_position);

  // For tests: marker i's label as drawn, and whether it is on the chart now.
  bool isShown(size_t i) const;
  QRectF labelRect(size_t i) const;  // scene coordinates; empty when hidden
  std::vector<QRectF> labelRects() const;  // every label shown, scene coordinates
  std::vector<QRectF> markerRects() const;  // every marker shown, scene coordinates

 private:
  struct Items {
    QAbstractGraphicsShapeItem* marker = nullptr;
    QGraphicsSimpleTextItem* label = nullptr;
  };
  void clear();
  QChart* chart_;
  std::vector<TimelineMarker> markers_;
  std::vector<Items> items_;
};

}  // namespace sawtooth::views
