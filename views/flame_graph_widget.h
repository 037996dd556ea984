#pragma once
// Live bytes by call stack as an icicle, heaptrack's flame graph turned top-down: the root (all
// live bytes) on top, each frame below its caller, as wide as the bytes alive under it. Hovering a
// frame says its bytes, share and allocations; clicking one zooms to it (its ancestors stay on top
// full width; clicking one of them, or double-clicking, zooms out).

#include <QColor>
#include <QWidget>
#include <memory>
#include <vector>

#include "core/analysis/flame_graph.h"
#include "core/analysis/flame_layout.h"

namespace sawtooth::views {

class FlameGraphWidget : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kRowHeight = 20;

  explicit FlameGraphWidget(QWidget* parent = nullptr);
  void setGraph(std::shared_ptr<const FlameGraph> graph);
  // A colour per node (after setGraph; an invalid colour keeps the label's warm hue): the
  // Modules view colours its category leaves by category.
  void setNodeColours(std::vector<QColor> colours);
  const std::vector<QColor>& nodeColours() const { return colours_; }
  const std::shared_ptr<const FlameGraph>& graph() const { return graph_; }
  void zoomTo(uint32_t node);
  uint32_t focus() const { return focus_; }
  const std::vector<FlameRect>& rects() const { return rects_; }
  // The node drawn at a point (UINT32_MAX: none), and what its tooltip says.
  uint32_t nodeAt(QPoint pos) const;
  QString describe(uint32_t node) const;

  QSize sizeHint() const override;

 signals:
  void focusChanged(uint32_t node);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void relayout();
  QRectF rectOf(const FlameRect& r) const;

  std::shared_ptr<const FlameGraph> graph_;
  uint32_t focus_ = 0;
  std::vector<FlameRect> rects_;
  std::vector<QColor> colours_;
};

}  // namespace sawtooth::views
