#include "views/flame_graph_widget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include "views/qt_format.h"

namespace sawtooth::views {
namespace {

// heaptrack's warm palette: a hue from red to yellow picked by the label, so that a frame keeps
// its colour when zooming.
QColor frameColor(const std::string& label, bool ancestor) {
  const size_t h = std::hash<std::string>{}(label);
  QColor c = QColor::fromHsv(static_cast<int>(h % 55), 150 + static_cast<int>((h >> 8) % 80), 230);
  return ancestor ? c.lighter(115) : c;
}

}  // namespace

FlameGraphWidget::FlameGraphWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
  setMinimumHeight(kRowHeight * 4);
}

void FlameGraphWidget::setGraph(std::shared_ptr<const FlameGraph> graph) {
  graph_ = std::move(graph);
  colours_.clear();
  focus_ = 0;
  relayout();
}

void FlameGraphWidget::setNodeColours(std::vector<QColor> colours) {
  colours_ = std::move(colours);
  update();
}

void FlameGraphWidget::zoomTo(uint32_t node) {
  if (!graph_ || node >= graph_->nodes.size() || node == focus_) return;
  focus_ = node;
  relayout();
  emit focusChanged(node);
}

void FlameGraphWidget::relayout() {
  rects_.clear();
  if (graph_ && !graph_->nodes.empty()) rects_ = layoutFlame(*graph_, focus_, 1.0 / std::max(1, width()));
  updateGeometry();
  update();
}

QSize FlameGraphWidget::sizeHint() const { return {900, kRowHeight * std::max(4, flameDepth(rects_) + 1)}; }

QRectF FlameGraphWidget::rectOf(const FlameRect& r) const {
  const double w = width();
  return {r.x * w, static_cast<double>(r.depth * kRowHeight), r.width * w, static_cast<double>(kRowHeight - 1)};
}

void FlameGraphWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (!graph_) return;
  const QFontMetrics fm = fontMetrics();
  for (const FlameRect& r : rects_) {
    const QRectF box = rectOf(r);
    const FlameNode& n = graph_->nodes[r.node];
    const bool own = r.node < colours_.size() && colours_[r.node].isValid();
    p.fillRect(box.adjusted(0, 0, -1, 0), own ? colours_[r.node] : frameColor(n.label, r.ancestor));
    if (box.width() < 24) continue;
    const QString text = QStringLiteral("%1 (%2)").arg(toQString(n.label), bytesText(n.bytes));
    p.setPen(Qt::black);
    p.drawText(box.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(text, Qt::ElideRight, static_cast<int>(box.width()) - 6));
  }
}

void FlameGraphWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  relayout();
}

uint32_t FlameGraphWidget::nodeAt(QPoint pos) const {
  for (const FlameRect& r : rects_)
    if (rectOf(r).contains(pos)) return r.node;
  return UINT32_MAX;
}

QString FlameGraphWidget::describe(uint32_t node) const {
  if (!graph_ || node >= graph_->nodes.size()) return {};
  const FlameNode& n = graph_->nodes[node];
  const int64_t total = graph_->nodes[0].bytes;
  const double share = total > 0 ? 100.0 * static_cast<double>(n.bytes) / static_cast<double>(total) : 0;
  return tr("<b>%1</b><br>%2 live (%3 % of all), %4 with this frame innermost<br>%L5 allocations")
      .arg(toQString(n.label).toHtmlEscaped(), bytesText(n.bytes))
      .arg(share, 0, 'f', 1)
      .arg(bytesText(n.self_bytes))
      .arg(n.count);
}

void FlameGraphWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    const uint32_t node = nodeAt(event->position().toPoint());
    if (node != UINT32_MAX) zoomTo(node);
    return;
  }
  QWidget::mousePressEvent(event);
}

void FlameGraphWidget::mouseDoubleClickEvent(QMouseEvent*) { zoomTo(0); }

bool FlameGraphWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = describe(nodeAt(help->pos()));
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace sawtooth::views
