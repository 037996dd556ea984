#include "views/timeline_chart.h"

#include <QApplication>
#include <QGraphicsLineItem>
#include <QLegendMarker>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

#include "core/analysis/frame_filter.h"
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
    case SeriesKind::Reserved: return QPen(base.lighter(135), 1.2, Qt::DashLine);
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

QString prettyCategory(Category c) { return toQString(name(c)).replace('_', ' '); }

}  // namespace

QColor categoryColor(Category category) {
  switch (category) {
    case Category::Unknown: return QColor(0xb0, 0xb0, 0xb0);
    case Category::Parameter: return QColor(0x2e, 0x7d, 0x32);
    case Category::Gradient: return QColor(0x15, 0x65, 0xc0);
    case Category::OptimizerState: return QColor(0xda, 0xa5, 0x20);
    case Category::Input: return QColor(0x42, 0x42, 0x42);
    case Category::Activation: return QColor(0xd3, 0x2f, 0x2f);
    case Category::Temporary: return QColor(0x95, 0x75, 0xcd);
    case Category::AutogradDetail: return QColor(0x41, 0x69, 0xe1);
  }
  return Qt::gray;
}

TimelineChart::TimelineChart(QWidget* parent) : QChartView(parent) {
  auto* c = installThemedChart(this);
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

void TimelineChart::setTitle(const QString& title) { chart()->setTitle(title); }

void TimelineChart::setVisibleDevices(std::set<int16_t> devices) {
  visible_devices_ = std::move(devices);
  rebuild();
}

void TimelineChart::setStackedCategories(bool stacked) {
  if (stacked == stacked_) return;
  stacked_ = stacked;
  rebuild();
}

bool TimelineChart::hasCategories() const {
  if (!analysis_) return false;
  for (const auto& d : analysis_->devices())
    if (!d->categories.empty()) return true;
  return false;
}

void TimelineChart::setSharedBounds(double lo, double hi) {
  shared_bounds_ = std::make_pair(lo, hi);
  if (!analysis_) return;
  window_.setBounds(lo, hi, by_time_ ? 1000.0 : 4.0);
  applyWindow();
}

void TimelineChart::setPhaseLegendVisible(bool visible) {
  phase_legend_ = visible;
  rebuild();
}

void TimelineChart::setPlanLines(std::vector<PlanLine> lines) {
  plan_lines_ = std::move(lines);
  rebuild();
}

void TimelineChart::rebuild() {
  QChart* c = chart();
  for (auto* s : c->series()) c->removeSeries(s), delete s;
  lines_.clear();
  layers_.clear();
  plans_.clear();
  peaks_.clear();
  ooms_.clear();
  phase_entries_.clear();
  hideHover();
  if (!analysis_) return;

  const auto& devices = analysis_->devices();
  int shown = 0;
  for (const auto& d : devices) shown += deviceShown(d->device);
  const bool several = shown > 1;
  for (size_t di = 0; di < devices.size(); ++di) {
    const DeviceAnalysis& d = *devices[di];
    if (!deviceShown(d.device)) continue;
    if (stacked_) addCategoryStack(d, several);
    addLines(d, static_cast<int>(di), several);
    addPeak(d, several);
    addOomMarkers(d);
  }
  addPlanLines();
  // Stacked categories fill the legend already; the bands stay, their names show on hover.
  if (phase_legend_ && !stacked_) addPhaseLegend();
  connectLegend();
  axis_x_->setTitleText(by_time_ ? tr("time (ms)") : tr("allocation event"));
  const double lo = shared_bounds_ ? shared_bounds_->first : analysis_->xMin(by_time_);
  const double hi = shared_bounds_ ? shared_bounds_->second : analysis_->xMax(by_time_);
  window_.setBounds(lo, hi, by_time_ ? 1000.0 : 4.0);
  applyWindow();
}

void TimelineChart::addLines(const DeviceAnalysis& d, int device_index, bool several) {
  for (const SeriesAnalysis& l : d.lines) {
    auto* s = new QLineSeries();
    const QString what = toQString(name(l.series->kind)).replace('_', ' ');
    s->setName(several ? QStringLiteral("%1 %2").arg(toQString(analysis_->trace().deviceName(d.device)), what) : what);
    s->setPen(penFor(l.series->kind, device_index));
    chart()->addSeries(s);
    s->attachAxis(axis_x_);
    s->attachAxis(axis_y_);
    lines_.push_back(Line{d.device, &l, s});
  }
}

void TimelineChart::addPeak(const DeviceAnalysis& d, bool several) {
  const SeriesAnalysis* alloc = d.line(SeriesKind::Allocated);
  if (!alloc) return;
  auto* peak = new QScatterSeries();
  peak->setName(several ? tr("%1 peak").arg(toQString(analysis_->trace().deviceName(d.device))) : tr("peak"));
  peak->setMarkerSize(9);
  peak->setColor(QColor(0xd6, 0x27, 0x28));
  peak->setBorderColor(Qt::white);
  // Label the peak only where it means something next to the largest one (a CPU device with a
  // few bytes beside a GPU with gigabytes keeps its marker, not a label).
  peak->setPointLabelsVisible(alloc->peak.value * 50 >= analysis_->maxValue());
  QFont label_font = peak->pointLabelsFont();
  label_font.setBold(true);
  peak->setPointLabelsFont(label_font);
  peak->setPointLabelsColor(QColor(0xd6, 0x27, 0x28));
  peak->setPointLabelsClipping(false);
  peak->setPointLabelsFormat(peakLabel(d.device));
  const Peak& p = alloc->peak;
  const auto& xs = alloc->series->xs(by_time_);
  const double x = p.point < 0 ? static_cast<double>(xs.empty() ? 0 : xs.front()) : static_cast<double>(xs[static_cast<size_t>(p.point)]);
  peak->append(toDisplayX(x), static_cast<double>(p.value) / kBytesPerUnit);
  chart()->addSeries(peak);
  peak->attachAxis(axis_x_);
  peak->attachAxis(axis_y_);
  peaks_.insert(d.device, peak);
}

void TimelineChart::addCategoryStack(const DeviceAnalysis& d, bool several) {
  if (d.categories.empty()) return;
  QLineSeries* lower = nullptr;
  for (int c = 0; c < kCategoryCount; ++c) {
    const auto category = static_cast<Category>(c);
    auto* upper = new QLineSeries();
    auto* area = new QAreaSeries(upper, lower);
    QString title = prettyCategory(category);
    if (several) title = QStringLiteral("%1 %2").arg(toQString(analysis_->trace().deviceName(d.device)), title);
    area->setName(title);
    QColor fill = categoryColor(category);
    fill.setAlpha(150);
    area->setBrush(fill);
    area->setPen(Qt::NoPen);
    chart()->addSeries(area);
    area->attachAxis(axis_x_);
    area->attachAxis(axis_y_);
    layers_.push_back(StackLayer{d.device, category, upper, area});
    lower = upper;
  }
}

void TimelineChart::addOomMarkers(const DeviceAnalysis& d) {
  if (d.oom_events.empty()) return;
  auto* s = new QScatterSeries();
  s->setName(tr("out of memory"));
  s->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
  s->setMarkerSize(13);
  s->setColor(QColor(0xb7, 0x1c, 0x1c));
  s->setBorderColor(Qt::white);
  const Series& a = d.series.allocated;
  for (uint64_t e : d.oom_events) {
    const double x = xOfEvent(e);
    // At the allocated value in force when it failed.
    auto it = std::upper_bound(a.event.begin(), a.event.end(), e);
    const double y = it == a.event.begin() ? static_cast<double>(a.start) : static_cast<double>(*(a.value.begin() + (it - a.event.begin()) - 1));
    s->append(toDisplayX(x), y / kBytesPerUnit);
  }
  s->setPointLabelsVisible(true);
  s->setPointLabelsFormat(tr("out of memory"));
  s->setPointLabelsColor(QColor(0xb7, 0x1c, 0x1c));
  chart()->addSeries(s);
  s->attachAxis(axis_x_);
  s->attachAxis(axis_y_);
  ooms_.push_back(s);
}

void TimelineChart::addPlanLines() {
  for (const PlanLine& p : plan_lines_) {
    auto* s = new QLineSeries();
    s->setName(p.label);
    s->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.3, Qt::DashDotDotLine));
    chart()->addSeries(s);
    s->attachAxis(axis_x_);
    s->attachAxis(axis_y_);
    plans_.emplace_back(s, p);
  }
}

void TimelineChart::addPhaseLegend() {
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

void TimelineChart::connectLegend() {
  // Clicking a legend entry shows or hides its line, area, or the bands of its phase.
  for (QLegendMarker* marker : chart()->legend()->markers()) {
    connect(marker, &QLegendMarker::clicked, this, [this, marker] {
      QAbstractSeries* s = marker->series();
      s->setVisible(!s->isVisible());
      marker->setVisible(true);
      QFont f = marker->font();
      f.setStrikeOut(!s->isVisible());
      marker->setFont(f);
      if (auto it = phase_entries_.find(s); it != phase_entries_.end()) bands_->setNameHidden(it.value(), !s->isVisible());
      refresh();
    });
  }
}

void TimelineChart::applyWindow() {
  axis_x_->setRange(toDisplayX(window_.lo()), toDisplayX(window_.hi()));
  refresh();
  emit windowChanged(window_.lo(), window_.hi());
}

int TimelineChart::pointBudget() const {
  const int columns = std::max(16, static_cast<int>(chart()->plotArea().width()));
  return columns * 2;
}

QAbstractSeries* TimelineChart::anchorSeries() const {
  if (!lines_.empty()) return lines_.front().series;
  return nullptr;
}

void TimelineChart::refresh() {
  if (!analysis_ || lines_.empty()) return;
  const int columns = std::max(16, static_cast<int>(chart()->plotArea().width()));
  double top = 0;
  auto toPoints = [&](const std::vector<LodPoint>& points, bool visible) {
    QList<QPointF> out;
    out.reserve(static_cast<qsizetype>(points.size()));
    for (const LodPoint& p : points) {
      out.append(QPointF(toDisplayX(p.x), p.y / kBytesPerUnit));
      if (visible) top = std::max(top, p.y);
    }
    return out;
  };
  for (const Line& l : lines_) {
    const Series& s = *l.source->series;
    l.series->replace(toPoints(l.source->lod.query(s.xs(by_time_), s.start, window_.lo(), window_.hi(), columns),
                               l.series->isVisible()));
  }
  for (const StackLayer& layer : layers_) {
    const DeviceAnalysis* d = analysis_->device(layer.device);
    const auto c = static_cast<size_t>(layer.category);
    const auto& xs = d->series.allocated.xs(by_time_);
    layer.upper->replace(toPoints(d->categories.lods[c].query(xs, d->categories.cumulative_start[c], window_.lo(),
                                                               window_.hi(), columns),
                                  layer.area->isVisible()));
  }
  for (auto& [series, plan] : plans_) {
    series->replace(QList<QPointF>{{toDisplayX(window_.lo()), plan.bytes / kBytesPerUnit},
                                   {toDisplayX(window_.hi()), plan.bytes / kBytesPerUnit}});
    if (series->isVisible()) top = std::max(top, plan.bytes);
  }
  // The y axis follows what is visible, with room for the peak label.
  const double y_max = std::max(1.0, top / kBytesPerUnit * 1.12);
  axis_y_->setRange(0, y_max);
  applyTicks(axis_y_, 0, y_max, 6, false);
  applyTicks(axis_x_, toDisplayX(window_.lo()), toDisplayX(window_.hi()), std::max(2, columns / 110), !by_time_);
  bands_->update(*analysis_, window_, by_time_, chart()->plotArea(),
                 [this](double x) { return chart()->mapToPosition(QPointF(toDisplayX(x), 0), anchorSeries()).x(); });
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

double TimelineChart::xOfEvent(uint64_t event) const {
  if (!analysis_ || event >= analysis_->trace().events.size()) return 0;
  const Trace& t = analysis_->trace();
  if (by_time_) return static_cast<double>(t.events.tNs()[event]);
  const DeviceAnalysis* d = analysis_->device(t.events.device()[event]);
  if (!d) return 0;
  const auto& evs = d->series.allocator_events;
  const auto pos = std::upper_bound(evs.begin(), evs.end(), event) - evs.begin();
  return static_cast<double>(std::max<std::ptrdiff_t>(0, pos - 1));
}

QLineSeries* TimelineChart::line(int16_t device, SeriesKind kind) const {
  for (const Line& l : lines_)
    if (l.device == device && l.source->series->kind == kind) return l.series;
  return nullptr;
}

QAreaSeries* TimelineChart::categoryArea(int16_t device, Category category) const {
  for (const StackLayer& l : layers_)
    if (l.device == device && l.category == category) return l.area;
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

QStringList TimelineChart::planLabels() const {
  QStringList out;
  for (const auto& [series, plan] : plans_) out << plan.label;
  return out;
}

int TimelineChart::oomMarkers() const {
  int n = 0;
  for (auto* s : ooms_) n += static_cast<int>(s->count());
  return n;
}

double TimelineChart::dataXAt(const QPointF& view_pos) const {
  if (!anchorSeries()) return 0;
  const QPointF scene = mapToScene(view_pos.toPoint());
  const QPointF in_chart = chart()->mapFromScene(scene);
  return fromDisplayX(chart()->mapToValue(in_chart, anchorSeries()).x());
}

QString TimelineChart::describeEvent(int64_t event) const {
  if (!analysis_ || event < 0) return {};
  const Trace& t = analysis_->trace();
  const auto i = static_cast<size_t>(event);
  if (i >= t.events.size()) return {};
  const Event e = t.events.at(i);
  QString text = QStringLiteral("<b>%1 %2</b> &nbsp;(%3)<br>")
                     .arg(toQString(name(e.action)), bytesText(e.size), toQString(t.deviceName(e.device)).toHtmlEscaped());
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
  if (e.category != Category::Unknown) text += tr("<br>category: %1").arg(prettyCategory(e.category));
  if (e.phase < t.phases.size()) text += tr("<br>phase: %1").arg(toQString(t.phases[e.phase].name).toHtmlEscaped());
  if (e.run < t.runs.size()) text += tr("<br>run: %1").arg(toQString(t.runs[e.run].name).toHtmlEscaped());
  if (e.stack != kNoStack) {
    const auto frames = interestingFrames(t.stacks, e.stack, 5);
    if (!frames.empty()) text += tr("<br>frames:");
    for (uint32_t f : frames) {
      const FrameView fr = t.stacks.frame(f);
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
  const double y_bytes = chart()->mapToValue(in_chart, anchorSeries()).y() * kBytesPerUnit;
  // Of each shown device's nearest event, the one whose allocated value is closest to the cursor.
  int64_t best = -1;
  double best_dy = INFINITY;
  for (const auto& d : analysis_->devices()) {
    if (!deviceShown(d->device)) continue;
    const int64_t e = analysis_->nearestEvent(d->device, x, by_time_);
    if (e < 0) continue;
    const auto& evs = d->series.allocator_events;
    const auto pos = static_cast<size_t>(std::lower_bound(evs.begin(), evs.end(), static_cast<uint64_t>(e)) - evs.begin());
    const double v = pos < d->series.allocated.size() ? static_cast<double>(d->series.allocated.value[pos]) : 0;
    if (std::fabs(v - y_bytes) < best_dy) best_dy = std::fabs(v - y_bytes), best = e;
  }
  if (best < 0) return hideHover();
  const QPointF px = chart()->mapToPosition(QPointF(toDisplayX(xOfEvent(static_cast<uint64_t>(best))), 0), anchorSeries());
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
