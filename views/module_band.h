#pragma once
// The band under the timeline that says which top-level block of the model is running (issue
// 23): one row of spans, forward, recompute and backward each in its own colour, labelled where
// they are wide enough; the pointer's block in a tooltip. It draws what it is given — the spans
// (core/analysis/module_band.h), the timeline's visible range and unit, and where the timeline's
// plot area lies — and owns no timeline of its own.

#include <QWidget>
#include <memory>

#include "core/analysis/module_band.h"

namespace sawtooth::views {

class ModuleBandView : public QWidget {
  Q_OBJECT
 public:
  explicit ModuleBandView(QWidget* parent = nullptr);

  // Hidden while there is no band (a trace without modules).
  void setBand(std::shared_ptr<const ModuleBand> band);
  // The visible range in the timeline's unit: ns, or allocator-event index.
  void setWindow(double lo, double hi, bool by_time);
  // The plot area's left and right edges in this widget's x (the timeline's axes are outside it).
  void setPlotEdges(int left, int right);

  const std::shared_ptr<const ModuleBand>& band() const { return band_; }
  // The span drawn at x (this widget's coordinates): the last one that covers it; null for none.
  const BandSpan* spanAt(int x) const;
  // "transformer.h.3 · backward", for the span at x; empty for none.
  QString textAt(int x) const;

  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  // The span's pixels [x0, x1) in this widget, clipped to the plot area; x1 <= x0 when not visible.
  std::pair<double, double> pixels(const BandSpan& span) const;

  std::shared_ptr<const ModuleBand> band_;
  double lo_ = 0, hi_ = 1;
  bool by_time_ = false;
  int left_ = 0, right_ = -1;  // right_ < 0: the widget's right edge
};

}  // namespace sawtooth::views
