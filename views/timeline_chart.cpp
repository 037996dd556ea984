#include "views/timeline_chart.h"

#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QLegendMarker>
#include <algorithm>
#include <cmath>
#include <limits>

#include "views/chart_export.h"
#include "views/qt_format.h"
#include "views/polyline_item.h"
#include "views/stack_columns_item.h"
#include "views/timeline_bands.h"
#include "views/timeline_hover.h"
#include "views/timeline_markers.h"
#include "views/timeline_style.h"
#include "views/views_logging.h"

namespace sawtooth::views {
namespace {
// The stacked categories: above the grid (2) and the axes (3), below Qt Charts' series items (4);
// the lines where Qt Charts would draw them.
constexpr qreal kStackZ = 3.9;
constexpr qreal kLinesZ = 4;
}  // namespace

TimelineChart::TimelineChart(QWidget* parent) : QChartView(parent) {
  auto* c = installThemedChart(this);
  setRubberBand(QChartView::NoRubberBand);
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  axis_x_ = new QValueAxis(this);
  axis_y_ = new QValueAxis(this);
  c->addAxis(axis_x_, Qt::AlignBottom);
  c->addAxis(axis_y_, Qt::AlignLeft);
  lines_item_ = new PolylineItem(c);
  lines_item_->setZValue(kLinesZ);
  bands_ = std::make_unique<TimelineBands>(c);
  markers_ = std::make_unique<TimelineMarkers>(c);
  hover_ = std::make_unique<TimelineHover>(this, c);
  rubber_ = new QRubberBand(QRubberBand::Rectangle, this);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("timelineStatus"));
  status_->setAttribute(Qt::WA_TransparentForMouseEvents);
  status_->setStyleSheet(QStringLiteral("QLabel { background: rgba(255, 248, 225, 220); color: #5d4037; padding: 2px 6px; "
                                        "border: 1px solid #d7ccc8; border-radius: 3px; }"));
  status_->hide();
  // The plot moves and narrows with its axes' labels after most redraws.
  connect(c, &QChart::plotAreaChanged, this, &TimelineChart::redrawForNewGeometry);
}

int TimelineChart::frameColumns() const {
  // The chart's width, not the plot's: a plot a few pixels narrower (wider y labels) would otherwise
  // ask for a frame of its own after each zoom, computed off the GUI thread and outlined once more.
  return std::max(16, static_cast<int>(chart()->size().width()));
}

int TimelineChart::plotColumns() const { return std::max(16, static_cast<int>(chart()->plotArea().width())); }

TimelineChart::~TimelineChart() = default;

void TimelineChart::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  analysis_ = std::move(analysis);
  if (analysis_) {
    // The summaries' frames give way to the trace in memory; the window the user chose stays.
    overview_.reset();
    frame_.reset();
    pending_.reset();
    status_->hide();
  }
  rebuild();
}

namespace {
// The same devices, lines and names: a grown recording only moves the extent and the peaks.
bool sameShape(const TimelineOverview& a, const TimelineOverview& b) {
  if (a.devices.size() != b.devices.size() || a.phase_names != b.phase_names) return false;
  for (size_t i = 0; i < a.devices.size(); ++i)
    if (a.devices[i].device != b.devices[i].device || a.devices[i].kinds != b.devices[i].kinds ||
        a.devices[i].categorised != b.devices[i].categorised || a.devices[i].name != b.devices[i].name)
      return false;
  return true;
}
}  // namespace

void TimelineChart::setOverview(std::shared_ptr<const TimelineOverview> overview) {
  analysis_.reset();
  const bool reshape = !overview_ || !overview || !sameShape(*overview_, *overview);
  overview_ = std::move(overview);
  if (!overview_) {
    frame_.reset();
    pending_.reset();
    status_->hide();
  }
  if (reshape) return rebuild();
  // Grown: the same series, a wider extent. A window at the latest moment follows it.
  const bool follow = follows_latest_;
  const ZoomWindow before = window_;
  const double lo = shared_bounds_ ? shared_bounds_->first : overview_->xMin(by_time_);
  const double hi = shared_bounds_ ? shared_bounds_->second : overview_->xMax(by_time_);
  window_.setBounds(lo, hi, by_time_ ? 1000.0 : 4.0);
  if (before.isZoomed()) {
    if (follow) window_.zoomTo(hi - before.width(), hi);
    else window_.zoomTo(before.lo(), before.hi());
  }
  updateFrameMarkers(drawn_devices_.size() > 1);
  applyWindow();
}

void TimelineChart::setFrame(TimelineFrame frame) {
  if (!overview_) return;
  const TimelineRequest want = currentRequest();
  const bool asked = pending_ && frame.request.id == pending_->id;
  if (!asked && !frame.request.sameWindow(want)) return;  // superseded
  if (asked) pending_.reset();
  frame_ = std::move(frame);
  if (!pending_) status_->hide();
  refresh();
}

void TimelineChart::setFrameFailed(const QString& message) {
  pending_.reset();
  status_->setText(tr("This window could not be read: %1").arg(message));
  status_->adjustSize();
  status_->show();
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
  if (overview_)
    return std::any_of(overview_->devices.begin(), overview_->devices.end(), [](const auto& d) { return d.categorised; });
  if (!analysis_) return false;
  for (const auto& d : analysis_->devices())
    if (!d->categories.empty()) return true;
  return false;
}

void TimelineChart::setYFromZero(bool from_zero) {
  if (from_zero == y_from_zero_) return;
  y_from_zero_ = from_zero;
  refresh();
}

void TimelineChart::setSharedBounds(double lo, double hi) {
  shared_bounds_ = std::make_pair(lo, hi);
  if (!hasData()) return;
  window_.setBounds(lo, hi, by_time_ ? 1000.0 : 4.0);
  applyWindow();
}

void TimelineChart::setPhaseLegendVisible(bool visible) {
  phase_legend_ = visible;
  rebuild();
}

void TimelineChart::setCompact(bool compact) {
  compact_ = compact;
  chart()->legend()->setVisible(!compact);
  refresh();
}

void TimelineChart::setLinesEndAtLastPoint(bool end) {
  end_at_last_point_ = end;
  refresh();
}

void TimelineChart::setPlanLines(std::vector<PlanLine> lines) {
  // The same lines again (none, for most traces) leave the chart as it is: a rebuild makes every
  // series anew.
  auto same = [](const PlanLine& a, const PlanLine& b) { return a.label == b.label && a.bytes == b.bytes && a.legend == b.legend; };
  if (std::equal(lines.begin(), lines.end(), plan_lines_.begin(), plan_lines_.end(), same)) return;
  plan_lines_ = std::move(lines);
  rebuild();
}

std::set<int16_t> TimelineChart::devicesToDraw() const {
  std::vector<std::pair<int64_t, int16_t>> candidates;  // (peak, device)
  auto consider = [&](DeviceId id, int64_t peak) {
    const auto device = static_cast<int16_t>(id);
    if (visible_devices_.empty() || visible_devices_.count(device)) candidates.emplace_back(peak, device);
  };
  if (overview_)
    for (const auto& d : overview_->devices) consider(d.device, d.peak);
  if (analysis_)
    for (const auto& d : analysis_->devices()) {
      const SeriesAnalysis* a = d->line(SeriesKind::Allocated);
      consider(d->device, a ? a->peak.value : 0);
    }
  if (candidates.size() > kMaxDrawnDevices) {
    std::partial_sort(candidates.begin(), candidates.begin() + kMaxDrawnDevices, candidates.end(),
                      [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
    candidates.resize(kMaxDrawnDevices);
  }
  std::set<int16_t> out;
  for (const auto& [peak, device] : candidates) out.insert(device);
  return out;
}

size_t TimelineChart::devicesLeftOut() const {
  size_t asked = 0;
  if (analysis_)
    for (const auto& d : analysis_->devices())
      asked += visible_devices_.empty() || visible_devices_.count(static_cast<int16_t>(d->device));
  if (overview_)
    for (const auto& d : overview_->devices)
      asked += visible_devices_.empty() || visible_devices_.count(static_cast<int16_t>(d.device));
  return asked - std::min(asked, drawn_devices_.size());
}

int16_t TimelineChart::referenceDevice() const {
  for (const Line& l : lines_) return l.device;
  if (overview_ && !overview_->devices.empty()) return static_cast<int16_t>(overview_->devices.front().device);
  return analysis_ && !analysis_->devices().empty() ? analysis_->devices().front()->device : 0;
}

QString TimelineChart::deviceName(int16_t device) const {
  if (analysis_) return toQString(analysis_->trace().deviceName(device));
  if (const auto* d = overview_ ? overview_->device(device) : nullptr) return toQString(d->name);
  return QString::number(device);
}

void TimelineChart::rebuild() {
  QElapsedTimer clock;
  clock.start();
  QChart* c = chart();
  for (auto* s : c->series()) c->removeSeries(s), delete s;
  lines_.clear();
  lines_item_->setLines({});
  layers_.clear();
  for (StackColumnsItem* item : stacks_) delete item;
  stacks_.clear();
  plans_.clear();
  phase_entries_.clear();
  markers_->setMarkers({});
  peak_devices_.clear();
  oom_markers_ = 0;
  hideHover();
  if (!hasData()) return;

  drawn_devices_ = devicesToDraw();
  // Each device with what it draws (ids as the file has them: the int16_t of the lines may wrap).
  std::vector<std::pair<int16_t, std::vector<std::pair<SeriesKind, const SeriesAnalysis*>>>> devices;
  if (analysis_)
    for (const auto& d : analysis_->devices()) {
      devices.emplace_back(static_cast<int16_t>(d->device), std::vector<std::pair<SeriesKind, const SeriesAnalysis*>>{});
      for (const SeriesAnalysis& l : d->lines) devices.back().second.emplace_back(l.series->kind, &l);
    }
  else
    for (const auto& d : overview_->devices) {
      devices.emplace_back(static_cast<int16_t>(d.device), std::vector<std::pair<SeriesKind, const SeriesAnalysis*>>{});
      for (SeriesKind kind : d.kinds) devices.back().second.emplace_back(kind, nullptr);
    }
  int shown = 0;
  for (const auto& [device, lines] : devices) shown += deviceShown(device);
  const bool several = shown > 1;
  int drawn = 0;
  for (const auto& [device, lines] : devices) {
    if (!deviceShown(device)) continue;
    if (stacked_) addCategoryStack(device, several);
    for (const auto& [kind, source] : lines) addLine(device, kind, source, drawn, several);
    ++drawn;
  }
  if (analysis_) updateMarkers(several);
  else updateFrameMarkers(several);
  addPlanLines();
  // Stacked categories fill the legend already; the bands stay, their names show on hover.
  if (phase_legend_ && !stacked_) addPhaseLegend();
  connectLegend();
  placeLegend();
  axis_x_->setTitleText(by_time_ ? tr("time (ms)") : tr("allocation event"));
  // A new extent shows all of it; the same extent (stacking toggled, devices changed) keeps the zoom,
  // and so does the same trace read in memory after its summaries (the extents differ by a little).
  const double lo = shared_bounds_ ? shared_bounds_->first : analysis_ ? analysis_->xMin(by_time_) : overview_->xMin(by_time_);
  const double hi = shared_bounds_ ? shared_bounds_->second : analysis_ ? analysis_->xMax(by_time_) : overview_->xMax(by_time_);
  const ZoomWindow before = window_;
  const bool same_axis = rebuilt_by_time_ == by_time_;
  const bool keep = before.isZoomed() && same_axis &&
                    (window_from_summaries_ || (before.boundsLo() == lo && before.boundsHi() == hi));
  const bool follow = keep && overview_ && window_from_summaries_ && follows_latest_;
  rebuilt_by_time_ = by_time_;
  window_from_summaries_ = overview_ != nullptr;
  window_.setBounds(lo, hi, by_time_ ? 1000.0 : 4.0);
  if (follow) window_.zoomTo(hi - before.width(), hi);  // a grown recording, its latest moment shown
  else if (keep) window_.zoomTo(before.lo(), before.hi());
  applyWindow();
  qCDebug(lcTimeline) << "rebuilt" << lines_.size() << "lines," << layers_.size() << "layers in" << clock.elapsed() << "ms";
}

void TimelineChart::addLine(int16_t device, SeriesKind kind, const SeriesAnalysis* source, int device_index, bool several) {
  auto* s = new QLineSeries();
  const QString what = toQString(name(kind)).replace('_', ' ');
  s->setName(several ? QStringLiteral("%1 %2").arg(deviceName(device), what) : what);
  s->setPen(fastLinePen(seriesPen(kind, device_index)));
  chart()->addSeries(s);
  s->attachAxis(axis_x_);
  s->attachAxis(axis_y_);
  lines_.push_back(Line{device, kind, source, s});
}

void TimelineChart::updateFrameMarkers(bool several) {
  std::vector<TimelineMarker> markers;
  peak_devices_.clear();
  for (const auto& d : overview_->devices) {
    const auto device = static_cast<int16_t>(d.device);
    if (!deviceShown(device)) continue;
    const double x = by_time_ ? static_cast<double>(d.peak_t_ns) : static_cast<double>(std::max<int64_t>(d.peak_point, 0));
    QString label = peakLabel(device);
    if (several) label = QStringLiteral("%1: %2").arg(deviceName(device), label);
    markers.push_back(TimelineMarker{x, static_cast<double>(d.peak), label, peakColor(), TimelineMarker::Shape::Dot,
                                     d.peak * 50 >= overview_->max_value});
    peak_devices_.push_back(device);
  }
  markers_->setMarkers(std::move(markers));
}

void TimelineChart::updateMarkers(bool several) {
  std::vector<TimelineMarker> markers;
  for (const auto& d : analysis_->devices()) {
    if (!deviceShown(d->device)) continue;
    const SeriesAnalysis* alloc = d->line(SeriesKind::Allocated);
    if (!alloc) continue;
    const Peak& p = alloc->peak;
    const Series& s = *alloc->series;
    const double x = p.point < 0 ? (s.empty() ? 0.0 : s.axis->x(0, by_time_)) : s.axis->x(static_cast<size_t>(p.point), by_time_);
    QString label = peakLabel(d->device);
    if (several) label = QStringLiteral("%1: %2").arg(deviceName(d->device), label);
    // Label the peak only where it means something next to the largest one (a CPU device with a
    // few bytes beside a GPU with gigabytes keeps its marker, not a label).
    markers.push_back(TimelineMarker{x, static_cast<double>(p.value), label, peakColor(), TimelineMarker::Shape::Dot,
                                     p.value * 50 >= analysis_->maxValue()});
    peak_devices_.push_back(d->device);
  }
  for (const auto& d : analysis_->devices()) {
    if (!deviceShown(d->device)) continue;
    for (uint64_t e : d->oom_events) {
      markers.push_back(TimelineMarker{d->xOfEvent(analysis_->trace(), e, by_time_),
                                       static_cast<double>(d->series.allocated.valueAfterEvent(e)), tr("out of memory"),
                                       oomColor(), TimelineMarker::Shape::Triangle, true});
      ++oom_markers_;
    }
  }
  markers_->setMarkers(std::move(markers));
}

void TimelineChart::addCategoryStack(int16_t device, bool several) {
  if (analysis_) {
    const DeviceAnalysis* d = analysis_->device(device);
    if (!d || d->categories.empty()) return;
  }
  if (overview_) {
    const auto* d = overview_->device(device);
    if (!d || !d->categorised) return;
  }
  QLineSeries* lower = nullptr;
  for (int c = 0; c < kCategoryCount; ++c) {
    const auto category = static_cast<Category>(c);
    auto* upper = new QLineSeries();
    auto* area = new QAreaSeries(upper, lower);
    QString title = categoryTitle(category);
    if (several) title = QStringLiteral("%1 %2").arg(deviceName(device), title);
    area->setName(title);
    QColor fill = categoryColor(category);
    fill.setAlpha(150);
    area->setBrush(fill);
    area->setPen(Qt::NoPen);
    area->setOpacity(0.0);  // drawn by the stack's item; the series keeps the legend and the data
    chart()->addSeries(area);
    area->attachAxis(axis_x_);
    area->attachAxis(axis_y_);
    layers_.push_back(StackLayer{device, category, upper, area, {}});
    lower = upper;
  }
  auto* item = new StackColumnsItem(chart());
  item->setZValue(kStackZ);
  stacks_.push_back(item);
}

void TimelineChart::placeStacks() {
  QAbstractSeries* anchor = anchorSeries();
  if (stacks_.empty() || !anchor) return;
  // The value axes are linear: two points give the mapping of every other.
  const QPointF p0 = chart()->mapToPosition(QPointF(0, 0), anchor), p1 = chart()->mapToPosition(QPointF(1, 1), anchor);
  const double sx = p1.x() - p0.x(), sy = p1.y() - p0.y();
  const QRectF plot = chart()->plotArea();
  for (size_t s = 0; s < stacks_.size(); ++s) {
    const size_t first = s * kCategoryCount;
    if (first + kCategoryCount > layers_.size()) break;
    const QList<QPointF>& base = layers_[first].top;
    std::vector<double> xs;
    xs.reserve(static_cast<size_t>(base.size()));
    for (const QPointF& p : base) xs.push_back(p0.x() + p.x() * sx);
    std::vector<StackColumnsItem::Layer> layers;
    for (size_t c = 0; c < kCategoryCount; ++c) {
      const StackLayer& layer = layers_[first + c];
      StackColumnsItem::Layer out;
      out.color = layer.area->brush().color();
      out.visible = layer.area->isVisible();
      const QList<QPointF>& points = layer.top;
      out.top.reserve(xs.size());
      for (qsizetype k = 0; k < points.size() && static_cast<size_t>(k) < xs.size(); ++k) out.top.push_back(p0.y() + points[k].y() * sy);
      out.top.resize(xs.size(), p0.y());
      layers.push_back(std::move(out));
    }
    stacks_[s]->setStack(plot, std::move(xs), p0.y(), std::move(layers));
  }
}

void TimelineChart::addPlanLines() {
  for (const PlanLine& p : plan_lines_) {
    auto* s = new QLineSeries();
    s->setName(toQString(p.legend.empty() ? p.label : p.legend));
    s->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.3, Qt::DashDotDotLine));
    chart()->addSeries(s);
    s->attachAxis(axis_x_);
    s->attachAxis(axis_y_);
    plans_.emplace_back(s, p);
  }
}

void TimelineChart::addPhaseLegend() {
  // The first names, in order of appearance (core keeps each name once: no search through 200,000
  // annotations here).
  const std::vector<std::string>& names = analysis_ ? analysis_->phaseNames() : overview_->phase_names;
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

void TimelineChart::placeLegend() {
  // One row below the plot while its entries fit the chart's width; a column on the right when
  // they do not (stacked categories beside the lines), where no entry is cut to "…".
  QLegend* legend = chart()->legend();
  const QFontMetricsF metrics(legend->font());
  constexpr qreal kMarkerAndGap = 34;  // the colour box, its spacing and the gap between entries
  qreal row = 0;
  for (QLegendMarker* m : legend->markers())
    if (m->isVisible()) row += metrics.horizontalAdvance(m->label()) + kMarkerAndGap;
  const Qt::Alignment wanted = row > chart()->size().width() * 0.95 ? Qt::AlignRight : Qt::AlignBottom;
  if (legend->alignment() != wanted) legend->setAlignment(wanted);
}

void TimelineChart::applyWindow() {
  follows_latest_ = window_.hi() >= window_.boundsHi();
  refresh();
  emit windowChanged(window_.lo(), window_.hi());
}

int TimelineChart::pointBudget() const {
  const int columns = analysis_ ? plotColumns() : frameColumns();
  return columns * 2;
}

QAbstractSeries* TimelineChart::anchorSeries() const {
  if (!lines_.empty()) return lines_.front().series;
  if (!plans_.empty()) return plans_.front().first;
  return nullptr;
}

QPointF TimelineChart::chartPosition(double x, double bytes) const {
  if (!anchorSeries()) return {};
  return chart()->mapToPosition(QPointF(toDisplayX(x), bytes / y_unit_.bytes), anchorSeries());
}

void TimelineChart::refresh() {
  if (!analysis_) return refreshFromFrame();
  if (lines_.empty() && plans_.empty()) return;
  QElapsedTimer clock;
  clock.start();
  const int columns = plotColumns();
  const double x0 = window_.lo(), x1 = window_.hi();
  std::vector<std::vector<LodPoint>> line_points(lines_.size());
  for (size_t i = 0; i < lines_.size(); ++i) {
    const Line& l = lines_[i];
    const Series& s = *l.source->series;
    line_points[i] = l.source->lod.query(s.axis->xs(by_time_), s.start, x0, x1, columns);
    if (end_at_last_point_) {
      // Up to the column that holds the last point, nothing after it.
      const double last = s.empty() ? x0 : s.axis->x(s.size() - 1, by_time_);
      const double column = (x1 - x0) / columns;
      std::erase_if(line_points[i], [&](const LodPoint& p) { return p.x > last + column; });
    }
  }
  std::vector<std::pair<StackLayer*, std::vector<double>>> layer_tops;
  std::vector<double> layer_x;
  for (size_t i = 0; i < layers_.size(); i += kCategoryCount) {
    const DeviceAnalysis* d = analysis_->device(layers_[i].device);
    auto stack = d->categories.query(*d->series.allocator, by_time_, x0, x1, columns);
    layer_x = stack.x;
    for (size_t c = 0; c < kCategoryCount; ++c) layer_tops.emplace_back(&layers_[i + c], std::move(stack.top[c]));
  }
  fitAndDraw(line_points, layer_x, layer_tops, columns);
  placeOverlays();
  qCDebug(lcTimeline) << "refreshed" << columns << "columns in" << clock.elapsed() << "ms";
}

TimelineRequest TimelineChart::currentRequest() const {
  TimelineRequest r;
  r.by_time = by_time_;
  r.x0 = window_.lo();
  r.x1 = window_.hi();
  r.columns = frameColumns();
  r.stacked = stacked_ && !layers_.empty();
  r.bands = bands_->isVisible();
  r.devices.assign(drawn_devices_.begin(), drawn_devices_.end());
  return r;
}

void TimelineChart::refreshFromFrame() {
  if (!overview_ || lines_.empty()) return;
  const TimelineRequest want = currentRequest();
  if (!frame_ || !frame_->request.sameWindow(want)) {
    if (!pending_ || !pending_->sameWindow(want)) {
      TimelineRequest request = want;
      request.id = ++next_request_;
      pending_ = request;
      emit frameRequested(request);
      if (!pending_ || pending_->id != request.id) return;  // answered at once (and drawn)
      status_->setText(tr("Computing this window from the file's summaries…"));
      placeStatus();
      status_->show();
    }
  }
  // The frame for this window, or the last one while it is computed (its points where they fall).
  const double x0 = window_.lo(), x1 = window_.hi();
  std::vector<std::vector<LodPoint>> line_points(lines_.size());
  std::vector<std::pair<StackLayer*, std::vector<double>>> layer_tops;
  std::vector<double> layer_x;
  if (frame_) {
    for (size_t i = 0; i < lines_.size(); ++i)
      for (const TimelineFrame::Line& fl : frame_->lines)
        if (fl.device == lines_[i].device && fl.kind == lines_[i].kind) line_points[i] = fl.points;
    for (size_t i = 0; i < layers_.size(); i += kCategoryCount)
      for (const TimelineFrame::Stack& st : frame_->stacks) {
        if (st.device != layers_[i].device) continue;
        layer_x = st.columns.x;
        for (size_t c = 0; c < kCategoryCount; ++c) layer_tops.emplace_back(&layers_[i + c], st.columns.top[c]);
      }
  }
  fitAndDraw(line_points, layer_x, layer_tops, want.columns);
  placeOverlays();
  (void)x0, (void)x1;
}

void TimelineChart::placeOverlays() {
  if (analysis_ ? lines_.empty() && plans_.empty() : !overview_ || lines_.empty()) return;
  const QRectF plot = chart()->plotArea();
  markers_->place(plot, [this](double x, double bytes) { return chartPosition(x, bytes); });
  if (analysis_) {
    bands_->update(*analysis_, referenceDevice(), window_, by_time_, plot);
  } else {
    static const std::vector<TimelineFrame::Band> kNone;
    bands_->update(frame_ ? frame_->bands : kNone, window_, plot);
  }
  bands_->hideLabelsOver(markers_->labelRects());
  lines_item_->place(*chart(), anchorSeries());
  placeStacks();
  if (status_->isVisible()) placeStatus();
}

void TimelineChart::placeStatus() {
  status_->adjustSize();
  const QRectF plot = chart()->plotArea();
  status_->move(mapFromScene(chart()->mapToScene(plot.topRight())).x() - status_->width() - 6,
                mapFromScene(chart()->mapToScene(plot.topLeft())).y() + 6);
}

void TimelineChart::fitAndDraw(std::vector<std::vector<LodPoint>>& line_points, const std::vector<double>& layer_x,
                               std::vector<std::pair<StackLayer*, std::vector<double>>>& layer_tops, int columns) {
  const double x0 = window_.lo(), x1 = window_.hi();
  // The visible data, in bytes, first: the y range and its unit follow from it.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  auto extend = [&](double v) { lo = std::min(lo, v), hi = std::max(hi, v); };
  for (size_t i = 0; i < lines_.size(); ++i)
    if (lines_[i].series->isVisible())
      for (const LodPoint& p : line_points[i])
        if (p.x >= x0 - (x1 - x0) && p.x <= x1 + (x1 - x0)) extend(p.y);
  for (const auto& [layer, tops] : layer_tops)
    if (layer->area->isVisible())
      for (double v : tops) extend(v);
  for (auto& [series, plan] : plans_)
    if (series->isVisible()) extend(plan.bytes);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  y_range_ = fitValueRange(lo, hi, y_from_zero_);
  y_unit_ = byteUnitFor(std::max(std::fabs(y_range_.lo), std::fabs(y_range_.hi)));
  const double unit = y_unit_.bytes;

  // Only the points in the window and one on each side of it (the segments that cross its edges):
  // a frame still drawn for the window before (a zoom, until its own arrives) holds mostly points
  // the new window clips, and Qt strokes every point a series holds for its shape on each change.
  auto toPoints = [&](const std::vector<LodPoint>& points) {
    auto first = std::lower_bound(points.begin(), points.end(), x0, [](const LodPoint& p, double x) { return p.x < x; });
    auto last = std::upper_bound(first, points.end(), x1, [](double x, const LodPoint& p) { return x < p.x; });
    if (first != points.begin()) --first;
    if (last != points.end()) ++last;
    QList<QPointF> out;
    out.reserve(static_cast<qsizetype>(last - first));
    for (auto p = first; p != last; ++p) out.append(QPointF(toDisplayX(p->x), p->y / unit));
    return out;
  };
  // Ticks before ranges: a new range never meets the old one's interval (switching from ms to
  // events would ask Qt for a tick per event first).
  applyTicks(axis_y_, y_range_.lo / unit, y_range_.hi / unit, compact_ ? 3 : 6, false);
  applyTicks(axis_x_, toDisplayX(x0), toDisplayX(x1), std::max(2, columns / 110), !by_time_);
  axis_x_->setRange(toDisplayX(x0), toDisplayX(x1));
  axis_y_->setRange(y_range_.lo / unit, y_range_.hi / unit);

  // The lines' and layers' points stay out of their series: Qt would outline each series' whole
  // path on every change of its points, the axes or the plot (polyline_item.h).
  std::vector<PolylineItem::Line> drawn;
  drawn.reserve(lines_.size());
  for (size_t i = 0; i < lines_.size(); ++i)
    drawn.push_back({lines_[i].series->pen(), lines_[i].series->isVisible(), toPoints(line_points[i])});
  lines_item_->setLines(std::move(drawn));
  ++lines_drawn_;
  for (auto& [layer, tops] : layer_tops) {
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(tops.size()));
    for (size_t k = 0; k < tops.size() && k < layer_x.size(); ++k) points.append(QPointF(toDisplayX(layer_x[k]), tops[k] / unit));
    layer->top = std::move(points);
  }
  for (auto& [series, plan] : plans_)
    series->replace(QList<QPointF>{{toDisplayX(x0), plan.bytes / unit}, {toDisplayX(x1), plan.bytes / unit}});
  axis_y_->setTitleText(yTitle());
  drawn_columns_ = columns;
}

QString TimelineChart::yTitle() const {
  const QString unit = toQString(y_unit_.name);
  return compact_ ? unit : tr("memory (%1)").arg(unit);
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

double TimelineChart::xOfEvent(uint64_t event) const { return analysis_ ? analysis_->xOfEvent(event, by_time_) : 0; }

QLineSeries* TimelineChart::line(int16_t device, SeriesKind kind) const {
  for (const Line& l : lines_)
    if (l.device == device && l.kind == kind) return l.series;
  return nullptr;
}

QList<QPointF> TimelineChart::linePoints(int16_t device, SeriesKind kind) const {
  for (size_t i = 0; i < lines_.size(); ++i)
    if (lines_[i].device == device && lines_[i].kind == kind && i < lines_item_->lines().size()) return lines_item_->lines()[i].values;
  return {};
}

QList<QPointF> TimelineChart::categoryTop(int16_t device, Category category) const {
  for (const StackLayer& l : layers_)
    if (l.device == device && l.category == category) return l.top;
  return {};
}

QAreaSeries* TimelineChart::categoryArea(int16_t device, Category category) const {
  for (const StackLayer& l : layers_)
    if (l.device == device && l.category == category) return l.area;
  return nullptr;
}

QString TimelineChart::peakLabel(int16_t device) const {
  if (overview_) {
    const auto* d = overview_->device(device);
    return d ? tr("peak %1").arg(bytesText(d->peak)) : QString();
  }
  if (!analysis_) return {};
  const DeviceAnalysis* d = analysis_->device(device);
  const SeriesAnalysis* alloc = d ? d->line(SeriesKind::Allocated) : nullptr;
  if (!alloc) return {};
  return tr("peak %1").arg(bytesText(alloc->peak.value));
}

QPointF TimelineChart::peakPoint(int16_t device) const {
  for (size_t i = 0; i < peak_devices_.size(); ++i)
    if (peak_devices_[i] == device) return QPointF(markers_->markers()[i].x, markers_->markers()[i].bytes);
  return {};
}

bool TimelineChart::peakShown(int16_t device) const {
  for (size_t i = 0; i < peak_devices_.size(); ++i)
    if (peak_devices_[i] == device) return markers_->isShown(i);
  return false;
}

QRectF TimelineChart::peakLabelRect(int16_t device) const {
  for (size_t i = 0; i < peak_devices_.size(); ++i)
    if (peak_devices_[i] == device) return markers_->labelRect(i);
  return {};
}

QStringList TimelineChart::planLabels() const {
  QStringList out;
  for (const auto& [series, plan] : plans_) out << toQString(plan.label);
  return out;
}

int TimelineChart::oomMarkers() const { return oom_markers_; }

QRectF TimelineChart::oomLabelRect(int k) const { return markers_->labelRect(peak_devices_.size() + static_cast<size_t>(k)); }

std::vector<QRectF> TimelineChart::markerLabelRects() const { return markers_->labelRects(); }

std::vector<QRectF> TimelineChart::markerRects() const { return markers_->markerRects(); }

std::vector<QRectF> TimelineChart::bandLabelRects() const { return bands_->labelRects(); }

int TimelineChart::bandsShown() const { return bands_->visibleBands(); }

QString TimelineChart::describeEvent(int64_t event) const {
  if (!analysis_ || event < 0) return {};
  const auto details = eventDetails(*analysis_, static_cast<uint64_t>(event));
  return details ? eventDetailsHtml(*details) : QString();
}

bool TimelineChart::hoverVisible() const { return hover_->isVisible(); }
QString TimelineChart::hoverText() const { return hover_->text(); }

void TimelineChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  placeLegend();
  redrawForNewGeometry();
}

void TimelineChart::redrawForNewGeometry() {
  // Drawn again only where the columns changed (a trace read whole is drawn at the plot's own
  // columns, the summaries' frames at the chart's width); otherwise Qt maps the points it holds to
  // the new plot itself and only what is placed in pixels follows. A trace read whole was drawn
  // four times over as its report arrived (the tab's views added, the plot's labels settling):
  // 119 ms of the GUI thread on a 2.9 M-event recording with the categories stacked.
  const int columns = analysis_ ? plotColumns() : frameColumns();
  if (drawn_columns_ == columns) placeOverlays();
  else refresh();
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
