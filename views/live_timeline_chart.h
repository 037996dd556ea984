#pragma once
// The timeline of a recording while it runs: allocated and reserved (and device memory in use,
// where sampled) per device against seconds since the first event, redrawn from the growing
// pyramids of core/analysis/live_timeline.h at each refresh. A chart that shows the latest moment
// follows it as it moves (the whole run, or the window the user zoomed to, sliding); one the user
// zoomed or panned away from the edge stays where it is. A dashed line marks the live edge.
// Wheel: zoom around the pointer; drag: pan; double click or End: show everything and follow.

#include <QChartView>
#include <QLineSeries>
#include <QValueAxis>
#include <vector>

#include "core/analysis/axis_scale.h"
#include "core/analysis/live_timeline.h"
#include "core/analysis/zoom_window.h"

namespace sawtooth::views {

class LiveTimelineChart : public QChartView {
  Q_OBJECT
 public:
  explicit LiveTimelineChart(QWidget* parent = nullptr);

  // The timeline to draw (not owned; null: nothing). Call refresh() after it grew.
  void setTimeline(const LiveTimeline* timeline);
  void refresh();

  bool followsLiveEdge() const { return following_; }
  void followLiveEdge();
  // Data units: ns since the first event.
  void zoomTo(double lo, double hi);
  void zoomAround(double anchor, double factor);
  void pan(double dx);
  const ZoomWindow& window() const { return window_; }
  double liveEdge() const { return edge_; }

  // Introspection for tests and the status line.
  QLineSeries* line(DeviceId device, SeriesKind kind) const;
  QLineSeries* edgeMarker() const { return edge_line_; }
  int pointsDrawn() const;
  ByteUnit yUnit() const { return y_unit_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  struct Line {
    DeviceId device;
    SeriesKind kind;
    QLineSeries* series;
  };
  void ensureLines();
  double dataXAt(const QPointF& view_pos) const;
  void afterUserMove();

  const LiveTimeline* timeline_ = nullptr;
  std::vector<Line> lines_;
  QLineSeries* edge_line_ = nullptr;
  QValueAxis* axis_x_ = nullptr;
  QValueAxis* axis_y_ = nullptr;
  ZoomWindow window_;
  ByteUnit y_unit_{"MB", 1e6};
  double edge_ = 0;
  bool following_ = true;
  bool dragging_ = false;
  QPoint drag_origin_;
  double drag_lo_ = 0;
};

}  // namespace sawtooth::views
