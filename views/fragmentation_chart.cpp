#include "views/fragmentation_chart.h"

#include <array>
#include <optional>

#include <QMouseEvent>
#include <QPen>

#include "views/chart_export.h"
#include "views/polyline_item.h"
#include "views/timeline_style.h"

namespace sawtooth::views {
namespace {

constexpr double kBytesPerUnit = 1e6;  // MB, as the timeline
const QColor kColors[FragmentationSeries::kLines] = {{0x9c, 0x27, 0xb0}, {0xd6, 0x27, 0x28}, {0x2c, 0xa0, 0x2c}};

}  // namespace

FragmentationChart::FragmentationChart(QWidget* parent) : QChartView(parent) {
  QChart* chart = installThemedChart(this);
  chart->legend()->setAlignment(Qt::AlignTop);  // the plot spans the timeline's width
  x_ = new QValueAxis(chart);
  y_ = new QValueAxis(chart);
  y_->setTitleText(tr("MB"));
  y_->setLabelFormat(QStringLiteral("%.0f"));
  chart->addAxis(x_, Qt::AlignBottom);
  chart->addAxis(y_, Qt::AlignLeft);
  for (int i = 0; i < FragmentationSeries::kLines; ++i) {
    lines_[i] = new QLineSeries(chart);
    lines_[i]->setName(QString::fromUtf8(FragmentationSeries::lineName(i).data()));
    lines_[i]->setPen(QPen(kColors[i], 1.5));
    chart->addSeries(lines_[i]);
    lines_[i]->attachAxis(x_);
    lines_[i]->attachAxis(y_);
  }
  lines_item_ = new PolylineItem(chart);
  lines_item_->setZValue(4);  // where Qt Charts draws its series
  // The plot moves with its axes' labels: what is placed in pixels follows.
  connect(chart, &QChart::plotAreaChanged, this, [this] {
    placeLines();
    placeMarker();
  });
  marker_ = new QGraphicsLineItem(chart);
  marker_->setPen(QPen(QColor(0x60, 0x60, 0x60), 1, Qt::DashLine));
  marker_->setZValue(20);
  marker_->hide();
  setMinimumHeight(100);
  setXAxisByTime(false);
}

namespace {

void setYTop(QValueAxis* y, int64_t top) {
  const double y_top = std::max(1.0, static_cast<double>(top) / kBytesPerUnit * 1.05);
  applyTicks(y, 0, y_top, 3, false);
  y->setRange(0, y_top);
}

}  // namespace

void FragmentationChart::setSeries(std::shared_ptr<const FragmentationSeries> series) {
  series_ = std::move(series);
  extent_.reset();
  frame_.reset();
  pending_.reset();
  if (series_) {
    lo_ = series_->xMin(by_time_);
    hi_ = std::max(lo_ + 1, series_->xMax(by_time_));
    int64_t top = 0;
    for (int i = 0; i < FragmentationSeries::kLines; ++i) top = std::max(top, series_->maxValue(i));
    setYTop(y_, top);
  }
  refresh();
}

void FragmentationChart::setOnDemand(const FragmentationExtent& extent) {
  series_.reset();
  extent_ = extent;
  marker_at_.reset();
  frame_.reset();
  pending_.reset();
  lo_ = extent.xMin(by_time_);
  hi_ = std::max(lo_ + 1, extent.xMax(by_time_));
  setYTop(y_, extent.max_value);
  refresh();
}

FragmentationRequest FragmentationChart::currentRequest() const {
  FragmentationRequest r;
  r.device = extent_ ? extent_->device : 0;
  r.by_time = by_time_;
  r.x0 = lo_;
  r.x1 = hi_;
  r.columns = std::max(16, static_cast<int>(chart()->size().width()));
  return r;
}

void FragmentationChart::setFrame(FragmentationFrame frame) {
  if (!extent_) return;
  const bool asked = pending_ && frame.request.id == pending_->id;
  if (!asked && !frame.request.sameWindow(currentRequest())) return;  // superseded
  if (asked) pending_.reset();
  frame_ = std::move(frame);
  refresh();
}

void FragmentationChart::setMarkerAt(qint64 position, double t_ns) {
  marker_at_ = {static_cast<double>(position), t_ns};
  placeMarker();
}

void FragmentationChart::setXAxisByTime(bool by_time) {
  by_time_ = by_time;
  x_->setTitleText(by_time ? tr("time (ms)") : tr("allocator event"));
  if (series_) {
    lo_ = series_->xMin(by_time_);
    hi_ = std::max(lo_ + 1, series_->xMax(by_time_));
  }
  if (extent_) {
    lo_ = extent_->xMin(by_time_);
    hi_ = std::max(lo_ + 1, extent_->xMax(by_time_));
  }
  refresh();
}

void FragmentationChart::setWindow(double lo, double hi) {
  if (!(hi > lo)) return;
  lo_ = lo;
  hi_ = hi;
  refresh();
}

void FragmentationChart::setMarker(qint64 position) {
  marker_position_ = position;
  placeMarker();
}

void FragmentationChart::refresh() {
  // The chart's width, not the plot's (which follows the axes' labels): one frame a window.
  const int columns = std::max(16, static_cast<int>(chart()->size().width()));
  std::array<std::optional<QList<QPointF>>, FragmentationSeries::kLines> points;
  if (extent_) {
    // The frame of this window, once it comes (the last one stays drawn meanwhile).
    const FragmentationRequest want = currentRequest();
    if (frame_ && frame_->request.sameWindow(want)) {
      for (int i = 0; i < FragmentationSeries::kLines; ++i) {
        auto& line = points[static_cast<size_t>(i)].emplace();
        for (const LodPoint& p : frame_->lines[static_cast<size_t>(i)]) line.append({toDisplayX(p.x), p.y / kBytesPerUnit});
      }
    } else if (!pending_ || !pending_->sameWindow(want)) {
      pending_ = want;
      pending_->id = ++next_request_;
      emit frameRequested(*pending_);
    }
  } else {
    for (int i = 0; i < FragmentationSeries::kLines; ++i) {
      auto& line = points[static_cast<size_t>(i)].emplace();
      if (series_)
        for (const LodPoint& p : series_->query(i, by_time_, lo_, hi_, columns)) line.append({toDisplayX(p.x), p.y / kBytesPerUnit});
    }
  }
  // The timeline's ticks (1, 2 or 5 × 10^k, whole event numbers), not Qt's five at any value; set
  // before the range, so that a new range never meets an old range's interval (a tick per event
  // of a million).
  if (hi_ > lo_) applyTicks(x_, toDisplayX(lo_), toDisplayX(hi_), std::max(2, columns / 110), !by_time_);
  x_->setRange(toDisplayX(lo_), toDisplayX(hi_));
  // The points stay out of the series: Qt outlines each series' whole path on every change of its
  // points, the axes or the plot (polyline_item.h). A line without new points keeps its last ones.
  std::vector<PolylineItem::Line> drawn = lines_item_->lines();
  drawn.resize(FragmentationSeries::kLines);
  for (int i = 0; i < FragmentationSeries::kLines; ++i) {
    auto& line = drawn[static_cast<size_t>(i)];
    line.pen = lines_[i]->pen();
    line.visible = lines_[i]->isVisible();
    if (points[static_cast<size_t>(i)]) line.values = std::move(*points[static_cast<size_t>(i)]);
  }
  lines_item_->setLines(std::move(drawn));
  placeLines();
  placeMarker();
}

void FragmentationChart::placeLines() { lines_item_->place(*chart(), lines_[0]); }

QList<QPointF> FragmentationChart::linePoints(int index) const {
  const auto& lines = lines_item_->lines();
  return index >= 0 && static_cast<size_t>(index) < lines.size() ? lines[static_cast<size_t>(index)].values : QList<QPointF>{};
}

void FragmentationChart::placeMarker() {
  if (extent_ ? !marker_at_ : (!series_ || marker_position_ < -1)) {
    marker_->hide();
    return;
  }
  const double x = toDisplayX(extent_ ? (by_time_ ? marker_at_->second : marker_at_->first)
                                      : series_->xOf(std::max<qint64>(0, marker_position_), by_time_));
  const QRectF plot = chart()->plotArea();
  const QPointF px = chart()->mapToPosition(QPointF(x, 0), lines_[0]);
  marker_->setLine(px.x(), plot.top(), px.x(), plot.bottom());
  marker_->setVisible(px.x() >= plot.left() && px.x() <= plot.right());
}

void FragmentationChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  refresh();
}

void FragmentationChart::mousePressEvent(QMouseEvent* event) {
  if ((series_ || extent_) && event->button() == Qt::LeftButton && chart()->plotArea().contains(event->position())) {
    const double x = chart()->mapToValue(event->position(), lines_[0]).x();
    if (extent_) emit xClicked(by_time_ ? x * 1e6 : x);
    else emit positionClicked(series_->positionAt(by_time_ ? x * 1e6 : x, by_time_));
    return;
  }
  QChartView::mousePressEvent(event);
}

}  // namespace sawtooth::views
