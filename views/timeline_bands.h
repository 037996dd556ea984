#pragma once
// Phase and annotation bands behind the timeline's lines: translucent rectangles with a label,
// recomputed for each visible window (only the bands that intersect it are drawn).

#include <QChart>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/trace_analysis.h"
#include "core/analysis/zoom_window.h"

namespace sawtooth::views {

class TimelineBands {
 public:
  explicit TimelineBands(QChart* chart) : chart_(chart) {}

  void setVisible(bool visible) { visible_ = visible; }
  bool isVisible() const { return visible_; }
  void setNameHidden(const std::string& phase_name, bool hidden);
  // `to_pixel` maps a data x (ns or event index) to the chart's x coordinate.
  void update(const TraceAnalysis& analysis, const ZoomWindow& window, bool by_time, const QRectF& plot,
              const std::function<double(double)>& to_pixel);
  int visibleBands() const { return shown_; }

  static QColor colorFor(const std::string& phase_name);

 private:
  QChart* chart_;
  bool visible_ = true;
  std::set<std::string> hidden_names_;
  int shown_ = 0;
  std::vector<QGraphicsRectItem*> rects_;
  std::vector<QGraphicsSimpleTextItem*> labels_;
};

}  // namespace sawtooth::views
