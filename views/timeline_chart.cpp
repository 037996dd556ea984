#include "views/timeline_chart.h"

#include <QApplication>
#include <QGraphicsLineItem>
#include <QLegendMarker>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

#include "analysis/frame_filter.h"
#include "views/chart_export.h"
#include "views/qt_format.h"
#include "views/timeline_bands.h"

namespace sawtooth::views {
namespace {

constexpr double kBytesPerUnit = 1e6;  // the y axis is in MB, as the seed plots it

QColor deviceColor(int index) {
  static const QColor palette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
                                   QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf)};
  return palette[index % 6];
}

QPen penFor(SeriesKind kind, int device_index) {
  const QColor base = deviceColor(device_index);
  switch (kind) {
    case SeriesKind::Allocated: return QPen(base, 1.6);
    case SeriesKind::Reserved: {
      QPen pen(base.lighter(135), 1.2, Qt::DashLine);
      return pen;
    }
    case SeriesKind::Driver: return QPen(QColor(0xff, 0x7f, 0x0e), 1.2, Qt::DashDotLine);
    case SeriesKind::DeviceUsed: return QPen(QColor(0x7f, 0x7f, 0x7f), 1.2, Qt::DotLine);
  }
  return QPen(base);
}

// A tick step of 1, 2 or 5 × 10^k giving about `ticks` intervals over `range`.
double niceStep(double range, int ticks) {
  if (!(range > 0)) return 1;
  const double raw = range / std::max(1, ticks);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

void applyTicks(QValueAxis* axis, double lo, double hi, int ticks, bool integral) {
  double step = niceStep(hi - lo, ticks);
  if (integral) step = std::max(1.0, std::round(step));
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0);
  axis->setTickInterval(step);
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
  axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

QString seriesTitle(int16_t device, SeriesKind kind, bool several_devices) {
  const QString what = toQString(name(kind)).replace('_', ' ');
  return several_devices ? QStringLiteral("%1 %2").arg(toQString(deviceLabel(device)), what) : what;
}

}  // namespace

TimelineChart::TimelineChart(QWidget* parent) : QChartView(parent) {
  auto* c = new QChart();
  c->setAnimationOptions(QChart::NoAnimation);
  c->legend()->setAlignment(Qt::AlignBottom);
  c->setMargins(QMargins(6, 6, 6, 6));
  setChart(c);
  setRenderHint(QPainter::Antialiasing, true);
  setRubberBand(QChartView::NoRubberBand);
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  axis_x_ = new QValueAxis(this);
  axis_y_ = new QValueAxis(this);
  axis_y_->setTitleText(tr("memory (MB)"));
  c->addAxis(axis_x_, Qt::AlignBottom);
  c->addAxis(axis_y_, Qt::AlignLeft);
  bands_ = std::make_unique<TimelineBands>(c);
  hover_line_ = new QGraphicsLineItem(c);
  hover_line_->setPen(QPen(QColor(120, 120, 120, 180), 1, Qt::DashLine));
  hover_line_->setZValue(50);
  hover_line_->hide();
  rubber_ = new QRubberBand(QRubberBand::Rectangle, this);
  connect(c, &QChart::plotAreaChanged, this, [this] { refresh(); });
}

TimelineChart::~TimelineChart() = default;

void TimelineChart::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  analysis_ = std::move(analysis);
  rebuild();
}

void TimelineChart::setXAxisByTime(bool by_time) {
  if (by_time == by_time_) return;
  by_time_ = by_time;
  rebuild();
}

void TimelineChart::setBandsVisible(bool visible) {
  bands_->setVisible(visible);
  refresh();
}

void TimelineChart::rebuild() {
  QChart* c = chart();
  for (auto* s : c->series()) c->removeSeries(s), delete s;
  lines_.clear();
  peaks_.clear();
  phase_entries_.clear();
  hideHover();
  if (!analysis_) return;

  const auto& devices = analysis_->devices();
  const bool several = devices.size() > 1;
  for (size_t di = 0; di < devices.size(); ++di) {
    const DeviceAnalysis& d = *devices[di];
    for (const SeriesAnalysis& l : d.lines) {
      auto* s = new QLineSeries();
      s->setName(seriesTitle(d.device, l.series->kind, several));
      s->setPen(penFor(l.series->kind, static_cast<int>(di)));
      c->addSeries(s);
      s->attachAxis(axis_x_);
      s->attachAxis(axis_y_);
      lines_.push_back(Line{d.device, &l, s});
    }
    // The allocated peak, marked and labelled.
    if (const SeriesAnalysis* alloc = d.line(SeriesKind::Allocated)) {
      auto* peak = new QScatterSeries();
      peak->setName(several ? tr("%1 peak").arg(toQString(deviceLabel(d.device))) : tr("peak"));
      peak->setMarkerSize(9);
      peak->setColor(QColor(0xd6, 0x27, 0x28));
      peak->setBorderColor(Qt::white);
      // Label the peak only where it means something next to the largest one (a CPU device with a
      // few bytes beside a GPU with gigabytes keeps its marker, not a label).
      const bool significant = alloc->peak.value * 50 >= analysis_->maxValue();
      peak->setPointLabelsVisible(significant);
      QFont label_font = peak->pointLabelsFont();
      label_font.setBold(true);
      peak->setPointLabelsFont(label_font);
      peak->setPointLabelsColor(QColor(0xd6, 0x27, 0x28));
      peak->setPointLabelsClipping(false);
      peak->setPointLabelsFormat(peakLabel(d.device));
      const Peak& p = alloc->peak;
      const double x = p.point < 0 ? static_cast<double>(alloc->series->xs(by_time_).empty() ? 0 : alloc->series->xs(by_time_).front())
                                   : static_cast<double>(alloc->series->xs(by_time_)[static_cast<size_t>(p.point)]);
      peak->append(toDisplayX(x), static_cast<double>(p.value) / kBytesPerUnit);
      c->addSeries(peak);
      peak->attachAxis(axis_x_);
      peak->attachAxis(axis_y_);
      peaks_.insert(d.device, peak);
    }
  }
  addPhaseLegend();
  // Clicking a legend entry shows or hides its line, or the bands of its phase.
  for (QLegendMarker* marker : c->legend()->markers()) {
    connect(marker, &QLegendMarker::clicked, this, [this, marker] {
      QAbstractSeries* s = marker->series();
      s->setVisible(!s->isVisible());
      marker->setVisible(true);
      QFont f = marker->font();
      f.setStrikeOut(!s->isVisible());
      marker->setFont(f);
      if (auto it = phase_entries_.find(s); it != phase_entries_.end()) {
        bands_->setNameHidden(it.value(), !s->isVisible());
        refresh();
      }
    });
  }
  axis_x_->setTitleText(by_time_ ? tr("time (ms)") : tr("allocation event"));
  const double lo = analysis_->xMin(by_time_), hi = analysis_->xMax(by_time_);
  window_.setBounds(lo, hi, by_time_ ? 1000.0 : 4.0);
  axis_y_->setRange(0, std::max(1.0, static_cast<double>(analysis_->maxValue()) / kBytesPerUnit * 1.08));
  applyWindow();
}

void TimelineChart::addPhaseLegend() {
  phase_entries_.clear();
  std::vector<std::string> names;
  for (const Phase& p : analysis_->trace().phases)
    if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
  constexpr size_t kMaxEntries = 8;  // beyond that the legend would crowd out the chart
  for (size_t i = 0; i < names.size() && i < kMaxEntries; ++i) {
    auto* s = new QLineSeries();
    s->setName(toQString(names[i]));
    QColor color = TimelineBands::colorFor(names[i]);
    color.setAlpha(90);
    s->setPen(QPen(color, 6));
    chart()->addSeries(s);
    s->attachAxis(axis_x_);
    s->attachAxis(axis_y_);
    phase_entries_.insert(s, names[i]);
  }
}

void TimelineChart::setTitle(const QString& title) { chart()->setTitle(title); }

void TimelineChart::applyWindow() {
  axis_x_->setRange(toDisplayX(window_.lo()), toDisplayX(window_.hi()));
  refresh();
  emit windowChanged(window_.lo(), window_.hi());
}

int TimelineChart::pointBudget() const {
  const int columns = std::max(16, static_cast<int>(chart()->plotArea().width()));
  return columns * 2;
}

void TimelineChart::refresh() {
  if (!analysis_ || lines_.empty()) return;
  const int columns = std::max(16, static_cast<int>(chart()->plotArea().width()));
  double top = 0;
  for (const Line& l : lines_) {
    const Series& s = *l.source->series;
    const auto points = l.source->lod.query(s.xs(by_time_), s.start, window_.lo(), window_.hi(), columns);
    QList<QPointF> qpoints;
    qpoints.reserve(static_cast<qsizetype>(points.size()));
    for (const LodPoint& p : points) {
      qpoints.append(QPointF(toDisplayX(p.x), p.y / kBytesPerUnit));
      if (l.series->isVisible()) top = std::max(top, p.y);
    }
    l.series->replace(qpoints);
  }
  // The y axis follows what is visible, with room for the peak label.
  const double y_max = std::max(1.0, top / kBytesPerUnit * 1.12);
  axis_y_->setRange(0, y_max);
  applyTicks(axis_y_, 0, y_max, 6, false);
  applyTicks(axis_x_, toDisplayX(window_.lo()), toDisplayX(window_.hi()), std::max(2, columns / 110), !by_time_);
  bands_->update(*analysis_, window_, by_time_, chart()->plotArea(),
                 [this](double x) { return chart()->mapToPosition(QPointF(toDisplayX(x), 0), lines_.front().series).x(); });
}

void TimelineChart::resetZoom() {
  window_.reset();
  applyWindow();
}

void TimelineChart::zoomTo(double lo, double hi) {
  window_.zoomTo(lo, hi);
  applyWindow();
}

void TimelineChart::zoomAround(double anchor, double factor) {
  window_.zoomAround(anchor, factor);
  applyWindow();
}

void TimelineChart::pan(double dx) {
  window_.pan(dx);
  applyWindow();
}

QLineSeries* TimelineChart::line(int16_t device, SeriesKind kind) const {
  for (const Line& l : lines_)
    if (l.device == device && l.source->series->kind == kind) return l.series;
  return nullptr;
}

QString TimelineChart::peakLabel(int16_t device) const {
  if (!analysis_) return {};
  const DeviceAnalysis* d = analysis_->device(device);
  const SeriesAnalysis* alloc = d ? d->line(SeriesKind::Allocated) : nullptr;
  if (!alloc) return {};
  return tr("peak %1").arg(bytesText(alloc->peak.value));
}

QPointF TimelineChart::peakPoint(int16_t device) const {
  auto* s = peaks_.value(device);
  return s && s->count() > 0 ? s->at(0) : QPointF();
}

double TimelineChart::dataXAt(const QPointF& view_pos) const {
  if (lines_.empty()) return 0;
  const QPointF scene = mapToScene(view_pos.toPoint());
  const QPointF in_chart = chart()->mapFromScene(scene);
  return fromDisplayX(chart()->mapToValue(in_chart, lines_.front().series).x());
}

QString TimelineChart::describeEvent(int64_t event) const {
  if (!analysis_ || event < 0) return {};
  const Trace& t = analysis_->trace();
  const auto i = static_cast<size_t>(event);
  if (i >= t.events.size()) return {};
  const Event e = t.events.at(i);
  QString text = QStringLiteral("<b>%1 %2</b> &nbsp;(%3)<br>")
                     .arg(toQString(name(e.action)), bytesText(e.size), toQString(deviceLabel(e.device)));
  if (e.action == Action::Oom) text += tr("free on device: %1<br>").arg(bytesText(static_cast<qint64>(e.addr)));
  else text += tr("address %1 · stream %2<br>").arg(addressText(e.addr)).arg(e.stream);
  text += tr("t = %1").arg(durationText(e.t_ns));
  if (const DeviceAnalysis* d = analysis_->device(e.device)) {
    const auto& evs = d->series.allocator_events;
    auto it = std::lower_bound(evs.begin(), evs.end(), i);
    if (it != evs.end() && *it == i) {
      const auto x = static_cast<size_t>(it - evs.begin());
      text += tr(" · event #%1").arg(x);
      const Series& a = d->series.allocated;
      if (a.size() == evs.size())
        text += tr("<br>allocated %1 · reserved %2").arg(bytesText(a.value[x]), bytesText(d->series.reserved.value[x]));
    }
  }
  if (e.category != Category::Unknown) text += tr("<br>category: %1").arg(toQString(name(e.category)));
  if (e.phase < t.phases.size()) text += tr("<br>phase: %1").arg(toQString(t.phases[e.phase].name).toHtmlEscaped());
  if (e.run < t.runs.size()) text += tr("<br>run: %1").arg(toQString(t.runs[e.run].name).toHtmlEscaped());
  if (e.stack != kNoStack) {
    const auto frames = interestingFrames(t.stacks, e.stack, 5);
    if (!frames.empty()) text += tr("<br>frames:");
    for (uint32_t f : frames) {
      const Frame& fr = t.stacks.frame(f);
      QString where = toQString(fr.file).section('/', -1);
      if (fr.line > 0) where += QStringLiteral(":%1").arg(fr.line);
      text += QStringLiteral("<br>&nbsp;&nbsp;%1 &nbsp;<i>%2</i>")
                  .arg(toQString(fr.name).left(90).toHtmlEscaped(), where.toHtmlEscaped());
    }
  }
  return text;
}

void TimelineChart::showHover(const QPoint& view_pos) {
  if (!analysis_ || lines_.empty()) return;
  const QPointF in_chart = chart()->mapFromScene(mapToScene(view_pos));
  if (!chart()->plotArea().contains(in_chart)) return hideHover();
  const double x = dataXAt(view_pos);
  const double y_bytes = chart()->mapToValue(in_chart, lines_.front().series).y() * kBytesPerUnit;
  // Of each device's nearest event, the one whose allocated value is closest to the cursor.
  int64_t best = -1;
  double best_dy = INFINITY;
  for (const auto& d : analysis_->devices()) {
    const int64_t e = analysis_->nearestEvent(d->device, x, by_time_);
    if (e < 0) continue;
    const auto& evs = d->series.allocator_events;
    const auto pos = static_cast<size_t>(std::lower_bound(evs.begin(), evs.end(), static_cast<uint64_t>(e)) - evs.begin());
    const double v = pos < d->series.allocated.size() ? static_cast<double>(d->series.allocated.value[pos]) : 0;
    if (std::fabs(v - y_bytes) < best_dy) best_dy = std::fabs(v - y_bytes), best = e;
  }
  if (best < 0) return hideHover();
  const Trace& t = analysis_->trace();
  const double ex = by_time_ ? static_cast<double>(t.events.tNs()[static_cast<size_t>(best)])
                             : [&] {
                                 const auto* d = analysis_->device(t.events.device()[static_cast<size_t>(best)]);
                                 const auto& evs = d->series.allocator_events;
                                 return static_cast<double>(std::lower_bound(evs.begin(), evs.end(), static_cast<uint64_t>(best)) - evs.begin());
                               }();
  const QPointF px = chart()->mapToPosition(QPointF(toDisplayX(ex), 0), lines_.front().series);
  const QRectF plot = chart()->plotArea();
  hover_line_->setLine(px.x(), plot.top(), px.x(), plot.bottom());
  hover_line_->show();
  QToolTip::showText(mapToGlobal(view_pos) + QPoint(14, 14), describeEvent(best), this);
  emit eventHovered(best);
}

void TimelineChart::hideHover() {
  if (hover_line_) hover_line_->hide();
  QToolTip::hideText();
}

void TimelineChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  refresh();
}

void TimelineChart::wheelEvent(QWheelEvent* event) {
  if (!analysis_) return;
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoomAround(dataXAt(event->position()), std::pow(0.8, steps));
  event->accept();
}

void TimelineChart::mousePressEvent(QMouseEvent* event) {
  if (!analysis_) return QChartView::mousePressEvent(event);
  drag_origin_ = event->pos();
  if (event->button() == Qt::LeftButton) {
    drag_ = Drag::Zoom;
    rubber_->setGeometry(QRect(drag_origin_, QSize()));
    rubber_->show();
  } else if (event->button() == Qt::RightButton || event->button() == Qt::MiddleButton) {
    drag_ = Drag::Pan;
    pan_origin_lo_ = window_.lo();
    setCursor(Qt::ClosedHandCursor);
  }
  hideHover();
  event->accept();
}

void TimelineChart::mouseMoveEvent(QMouseEvent* event) {
  switch (drag_) {
    case Drag::Zoom: {
      const QRectF plot = chart()->plotArea();
      const QPoint top_left = mapFromScene(chart()->mapToScene(plot.topLeft()));
      const QPoint bottom = mapFromScene(chart()->mapToScene(plot.bottomRight()));
      rubber_->setGeometry(QRect(QPoint(std::min(drag_origin_.x(), event->pos().x()), top_left.y()),
                                 QPoint(std::max(drag_origin_.x(), event->pos().x()), bottom.y())));
      break;
    }
    case Drag::Pan: {
      const double per_pixel = window_.width() / std::max(1.0, chart()->plotArea().width());
      window_.zoomTo(pan_origin_lo_, pan_origin_lo_ + window_.width());
      window_.pan(-(event->pos().x() - drag_origin_.x()) * per_pixel);
      applyWindow();
      break;
    }
    case Drag::None: showHover(event->pos()); break;
  }
  event->accept();
}

void TimelineChart::mouseReleaseEvent(QMouseEvent* event) {
  if (drag_ == Drag::Zoom) {
    rubber_->hide();
    if (std::abs(event->pos().x() - drag_origin_.x()) > 4) zoomTo(dataXAt(drag_origin_), dataXAt(event->pos()));
  }
  if (drag_ == Drag::Pan) unsetCursor();
  drag_ = Drag::None;
  event->accept();
}

void TimelineChart::mouseDoubleClickEvent(QMouseEvent* event) {
  resetZoom();
  event->accept();
}

void TimelineChart::keyPressEvent(QKeyEvent* event) {
  if (!analysis_) return QChartView::keyPressEvent(event);
  const double centre = (window_.lo() + window_.hi()) / 2;
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomAround(centre, 0.5); break;
    case Qt::Key_Minus: zoomAround(centre, 2.0); break;
    case Qt::Key_Left: pan(-window_.width() / 4); break;
    case Qt::Key_Right: pan(window_.width() / 4); break;
    case Qt::Key_Home:
    case Qt::Key_0: resetZoom(); break;
    default: return QChartView::keyPressEvent(event);
  }
  event->accept();
}

void TimelineChart::leaveEvent(QEvent* event) {
  hideHover();
  QChartView::leaveEvent(event);
}

bool TimelineChart::savePng(const QString& path, QSize size, qreal scale) {
  hideHover();
  return saveViewPng(this, path, size, scale);
}

bool TimelineChart::saveSvg(const QString& path, QSize size) {
  hideHover();
  return saveViewSvg(this, path, size, tr("Sawtooth timeline"));
}

}  // namespace sawtooth::views
