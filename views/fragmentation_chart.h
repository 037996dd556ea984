#pragma once
// The allocator's fragmentation under the timeline, on the timeline's x axis (ms or allocator-event
// index) and the same visible range (legend on top, so that the plot spans about the timeline's width): reserved − allocated, external fragmentation and the largest
// free block (MB). Each range is re-decimated from the series' pyramids (about two points per
// pixel column). A vertical line marks the event the segment map shows.
//
// A trace read on demand (a file past the whole-file budget) gives its extent instead
// (setOnDemand): the chart asks for each window's lines with frameRequested and draws the frame
// handed to setFrame (computed by the app off the GUI thread; the previous one stays drawn until it
// comes); a click says where (xClicked) and the app finds the event.

#include <QChartView>
#include <QGraphicsLineItem>
#include <QLineSeries>
#include <QValueAxis>
#include <memory>

#include "core/analysis/fragmentation_frame.h"
#include "core/analysis/fragmentation_series.h"

namespace sawtooth::views {

class PolylineItem;

class FragmentationChart : public QChartView {
  Q_OBJECT
 public:
  explicit FragmentationChart(QWidget* parent = nullptr);

  void setSeries(std::shared_ptr<const FragmentationSeries> series);
  const std::shared_ptr<const FragmentationSeries>& series() const { return series_; }
  void setOnDemand(const FragmentationExtent& extent);
  bool onDemand() const { return extent_.has_value(); }
  // The frame asked for; one for a window no longer shown is dropped.
  void setFrame(FragmentationFrame frame);
  const FragmentationFrame* frame() const { return frame_ ? &*frame_ : nullptr; }
  // On demand: the marker at an allocator event and its time (the app knows both).
  void setMarkerAt(qint64 position, double t_ns);
  std::optional<std::pair<double, double>> markerAt() const { return marker_at_; }
  void setXAxisByTime(bool by_time);
  bool xAxisByTime() const { return by_time_; }
  // The visible range in data units (ns or index), as the timeline's windowChanged gives it.
  void setWindow(double lo, double hi);
  void setMarker(qint64 position);  // -2: none

  // A line's series (legend, pen; empty) and the points drawn, in the axes' units (polyline_item.h).
  QLineSeries* line(int index) const { return lines_[index]; }
  QList<QPointF> linePoints(int index) const;
  QValueAxis* xAxis() const { return x_; }
  QValueAxis* yAxis() const { return y_; }

 signals:
  // A click on the chart: the allocator event there.
  void positionClicked(qint64 position);
  // On demand: a click at x (data units), and a window to draw.
  void xClicked(double x);
  void frameRequested(sawtooth::FragmentationRequest request);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  void refresh();
  void placeMarker();
  void placeLines();
  double toDisplayX(double x) const { return by_time_ ? x / 1e6 : x; }

  FragmentationRequest currentRequest() const;
  std::shared_ptr<const FragmentationSeries> series_;
  std::optional<FragmentationExtent> extent_;
  std::optional<FragmentationFrame> frame_;
  std::optional<FragmentationRequest> pending_;
  uint64_t next_request_ = 0;
  std::optional<std::pair<double, double>> marker_at_;  // on demand: position, time
  QLineSeries* lines_[FragmentationSeries::kLines] = {};
  QValueAxis* x_ = nullptr;
  QValueAxis* y_ = nullptr;
  QGraphicsLineItem* marker_ = nullptr;
  PolylineItem* lines_item_ = nullptr;  // draws lines_' points
  bool by_time_ = false;
  double lo_ = 0, hi_ = 0;
  qint64 marker_position_ = -2;
};

}  // namespace sawtooth::views
