#include "views/live_timeline_chart.h"

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "views/chart_export.h"
#include "views/qt_format.h"
#include "views/timeline_style.h"
#include "views/views_logging.h"

namespace sawtooth::views {
namespace {

constexpr double kNsPerSecond = 1e9;
constexpr double kMinWidthNs = 1e6;  // 1 ms: the narrowest window and the first moment's width

}  // namespace

LiveTimelineChart::LiveTimelineChart(QWidget* parent) : QChartView(parent) {
  auto* c = installThemedChart(this);
  setRubberBand(QChartView::NoRubberBand);
  setFocusPolicy(Qt::StrongFocus);
  axis_x_ = new QValueAxis(this);
  axis_y_ = new QValueAxis(this);
  axis_x_->setTitleText(tr("time since the first event (s)"));
  c->addAxis(axis_x_, Qt::AlignBottom);
  c->addAxis(axis_y_, Qt::AlignLeft);
  edge_line_ = new QLineSeries(this);
  edge_line_->setName(tr("live"));
  QPen pen(QColor(200, 30, 30));
  pen.setStyle(Qt::DashLine);
  pen.setWidthF(1.5);
  edge_line_->setPen(pen);
  c->addSeries(edge_line_);
  edge_line_->attachAxis(axis_x_);
  edge_line_->attachAxis(axis_y_);
  window_.setBounds(0, kMinWidthNs, kMinWidthNs);
  connect(c, &QChart::plotAreaChanged, this, [this] { refresh(); });
}

void LiveTimelineChart::setTimeline(const LiveTimeline* timeline) {
  timeline_ = timeline;
  for (const Line& l : lines_) chart()->removeSeries(l.series), delete l.series;
  lines_.clear();
  following_ = true;
  refresh();
}

QLineSeries* LiveTimelineChart::line(DeviceId device, SeriesKind kind) const {
  for (const Line& l : lines_)
    if (l.device == device && l.kind == kind) return l.series;
  return nullptr;
}

int LiveTimelineChart::pointsDrawn() const {
  int points = 0;
  for (const Line& l : lines_) points += static_cast<int>(l.series->count());
  return points;
}

// A line per device and kind as soon as the timeline has points for it (devices appear while
// the recording runs).
void LiveTimelineChart::ensureLines() {
  int device_index = 0;
  const bool several = timeline_->devices().size() > 1;
  for (const LiveTimeline::Device& d : timeline_->devices()) {
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::DeviceUsed}) {
      const bool has = kind == SeriesKind::DeviceUsed ? !d.device_used.empty() : !d.allocated.empty();
      if (!has || line(d.device, kind)) continue;
      auto* s = new QLineSeries(this);
      QString title = toQString(name(kind)).replace('_', ' ');
      if (several) {
        const QString device = d.source_device < 0 ? QStringLiteral("cpu") : QStringLiteral("cuda:%1").arg(d.source_device);
        title = d.label.empty() ? QStringLiteral("%1 %2").arg(device, title)
                                : QStringLiteral("%1 · %2 %3").arg(toQString(d.label), device, title);
      }
      s->setName(title);
      s->setPen(seriesPen(kind, device_index));
      chart()->addSeries(s);
      s->attachAxis(axis_x_);
      s->attachAxis(axis_y_);
      lines_.push_back(Line{d.device, kind, s});
    }
    ++device_index;
  }
}

void LiveTimelineChart::refresh() {
  if (!timeline_ || !timeline_->firstTime()) {
    edge_line_->clear();
    return;
  }
  QElapsedTimer clock;
  clock.start();
  ensureLines();
  const double first = static_cast<double>(*timeline_->firstTime());
  edge_ = std::max(kMinWidthNs, static_cast<double>(timeline_->lastTime()) - first);
  // New bounds: a following window slides with the edge, keeping its width; any other stays.
  const double lo = window_.lo(), hi = window_.hi();
  const bool was_whole = !window_.isZoomed();
  window_.setBounds(0, edge_, kMinWidthNs);
  if (following_ && !was_whole) window_.zoomTo(edge_ - (hi - lo), edge_);
  else if (!following_) window_.zoomTo(lo, hi);

  const int columns = std::max(16, static_cast<int>(chart()->plotArea().width()));
  const double x0 = window_.lo(), x1 = window_.hi();
  const double most = static_cast<double>(std::max<int64_t>(timeline_->maxValue(), 1));
  const ValueRange y = fitValueRange(0, most, true);
  y_unit_ = byteUnitFor(y.hi);
  for (const Line& l : lines_) {
    const LiveTimeline::Device* d = timeline_->device(l.device);
    const auto points = timeline_->query(*d, l.kind, first + x0, first + x1, columns);
    QList<QPointF> out;
    out.reserve(static_cast<qsizetype>(points.size()));
    for (const LodPoint& p : points) out.append(QPointF((p.x - first) / kNsPerSecond, p.y / y_unit_.bytes));
    l.series->replace(out);
  }
  const double edge_s = edge_ / kNsPerSecond;
  edge_line_->replace(QList<QPointF>{{edge_s, y.lo / y_unit_.bytes}, {edge_s, y.hi / y_unit_.bytes}});
  axis_x_->setRange(x0 / kNsPerSecond, x1 / kNsPerSecond);
  axis_y_->setRange(y.lo / y_unit_.bytes, y.hi / y_unit_.bytes);
  axis_y_->setTitleText(tr("bytes (%1)").arg(toQString(y_unit_.name)));
  applyTicks(axis_y_, y.lo / y_unit_.bytes, y.hi / y_unit_.bytes, 6, false);
  applyTicks(axis_x_, x0 / kNsPerSecond, x1 / kNsPerSecond, std::max(2, columns / 110), false);
  qCDebug(lcTimeline) << "live refresh" << columns << "columns," << timeline_->events() << "events in"
                      << clock.nsecsElapsed() / 1e6 << "ms";
}

void LiveTimelineChart::followLiveEdge() {
  following_ = true;
  window_.reset();
  refresh();
}

void LiveTimelineChart::zoomTo(double lo, double hi) {
  window_.zoomTo(lo, hi);
  afterUserMove();
}

void LiveTimelineChart::zoomAround(double anchor, double factor) {
  window_.zoomAround(anchor, factor);
  afterUserMove();
}

void LiveTimelineChart::pan(double dx) {
  window_.pan(dx);
  afterUserMove();
}

// A window that still reaches the live edge keeps following it.
void LiveTimelineChart::afterUserMove() {
  following_ = window_.hi() >= window_.boundsHi();
  refresh();
}

double LiveTimelineChart::dataXAt(const QPointF& view_pos) const {
  const QPointF in_chart = chart()->mapFromScene(mapToScene(view_pos.toPoint()));
  return chart()->mapToValue(in_chart, edge_line_).x() * kNsPerSecond;
}

void LiveTimelineChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  refresh();
}

void LiveTimelineChart::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps != 0) zoomAround(dataXAt(event->position()), std::pow(0.8, steps));
  event->accept();
}

void LiveTimelineChart::mousePressEvent(QMouseEvent* event) {
  dragging_ = true;
  drag_origin_ = event->pos();
  drag_lo_ = window_.lo();
  event->accept();
}

void LiveTimelineChart::mouseMoveEvent(QMouseEvent* event) {
  if (!dragging_) return QChartView::mouseMoveEvent(event);
  const double width_px = std::max(1.0, chart()->plotArea().width());
  const double dx = -(event->pos().x() - drag_origin_.x()) * window_.width() / width_px;
  window_.pan(drag_lo_ + dx - window_.lo());
  afterUserMove();
}

void LiveTimelineChart::mouseReleaseEvent(QMouseEvent* event) {
  dragging_ = false;
  QChartView::mouseReleaseEvent(event);
}

void LiveTimelineChart::mouseDoubleClickEvent(QMouseEvent* event) {
  followLiveEdge();
  event->accept();
}

void LiveTimelineChart::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_End:
    case Qt::Key_Home:
    case Qt::Key_0: followLiveEdge(); break;
    case Qt::Key_Left: pan(-window_.width() / 10); break;
    case Qt::Key_Right: pan(window_.width() / 10); break;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomAround((window_.lo() + window_.hi()) / 2, 0.8); break;
    case Qt::Key_Minus: zoomAround((window_.lo() + window_.hi()) / 2, 1.25); break;
    default: QChartView::keyPressEvent(event);
  }
}

}  // namespace sawtooth::views
