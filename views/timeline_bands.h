#pragma once
// Phase and annotation bands behind the timeline's lines: translucent columns with a label (all
// bands one item: views/band_strip_item.h says why), recomputed for each visible window (only the bands that intersect it are drawn). Where a phase
// lies on the x axis is core/analysis/phase_spans.h, on the index axis of the device drawn.

#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/phase_spans.h"
#include "core/analysis/timeline_frame.h"
#include "core/analysis/trace_analysis.h"
#include "core/analysis/zoom_window.h"

namespace sawtooth::views {

class BandStripItem;

class TimelineBands {
 public:
  explicit TimelineBands(QChart* chart) : chart_(chart) {}

  void setVisible(bool visible) { visible_ = visible; }
  bool isVisible() const { return visible_; }
  void setNameHidden(const std::string& phase_name, bool hidden);
  // `reference_device`: the device whose index axis places the phases (the first drawn). The
  // window maps linearly onto the plot's width.
  void update(const TraceAnalysis& analysis, int16_t reference_device, const ZoomWindow& window, bool by_time,
              const QRectF& plot);
  // The same from a frame read from a file's summaries (core/analysis/timeline_frame.h): its bands
  // are on the x axis already, merged where narrower than a column.
  void update(const std::vector<TimelineFrame::Band>& bands, const ZoomWindow& window, const QRectF& plot);
  int visibleBands() const { return shown_; }
  // Band names give way to the markers' labels: a name under one of `rects` (scene coordinates)
  // is hidden (the band stays, its name shows on hover and in the legend).
  void hideLabelsOver(const std::vector<QRectF>& rects);
  std::vector<QRectF> labelRects() const;  // the names shown, scene coordinates

  static QColor colorFor(const std::string& phase_name);

 private:
  struct Span {
    const std::string* name;
    PhaseKind kind;
    double px0, px1;
  };
  void draw(const std::vector<Span>& spans, const QRectF& plot);

  QChart* chart_;
  bool visible_ = true;
  std::set<std::string> hidden_names_;
  int shown_ = 0;
  BandStripItem* strip_ = nullptr;  // a child of chart_, made on the first draw
  std::vector<QGraphicsSimpleTextItem*> labels_;
};

}  // namespace sawtooth::views
