#pragma once
// A chart's lines drawn as one item. Qt Charts' QLineSeries outlines its whole path with a path
// stroker after each change of its points, its axes' ranges or the plot (its shape, for hovering and
// clicking on the line: an atan2 a point). Opening a recording from its summaries that was about
// 40 % of the GUI thread's CPU, the timeline's lines and the fragmentation chart's under it. Their
// QLineSeries stay, empty, for the legend, the axes and whether each line is shown; the points live
// here, in the axes' units, and each line is drawn as one polyline clipped to the plot.

#include <QGraphicsItem>
#include <QLineF>
#include <QList>
#include <QPen>
#include <QPointF>
#include <QPolygonF>
#include <vector>

class QAbstractSeries;
class QChart;

namespace sawtooth::views {

class PolylineItem : public QGraphicsItem {
 public:
  struct Line {
    QPen pen;
    bool visible = true;
    QList<QPointF> values;  // in the axes' units, x increasing
  };
  explicit PolylineItem(QGraphicsItem* parent = nullptr);

  // The lines, drawn once placed.
  void setLines(std::vector<Line> lines);
  const std::vector<Line>& lines() const { return lines_; }
  // Each value at origin + value × scale (the chart's axes are linear), clipped to the plot.
  void place(const QRectF& plot, QPointF origin, QPointF scale);
  // The same through the chart's own mapping of `anchor`, a series attached to the lines' axes.
  void place(QChart& chart, QAbstractSeries* anchor);
  // The pixels of line i as last placed (the pieces between non-finite values).
  const std::vector<QPolygonF>& drawn(size_t i) const { return drawn_[i]; }

  QRectF boundingRect() const override { return plot_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  std::vector<Line> lines_;
  QRectF plot_;
  std::vector<std::vector<QPolygonF>> drawn_;  // per line
  QList<QLineF> segments_;                     // painting's scratch
};

}  // namespace sawtooth::views
