#include "views/trace_tab.h"

#include <QApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QSplitter>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/analysis/experiment_results.h"
#include "core/io/csv_export.h"
#include "views/chart_export.h"
#include "views/experiment_charts.h"
#include "views/qt_format.h"
#include "views/table_csv.h"

namespace sawtooth::views {

TraceTab::TraceTab(QString path, QWidget* parent) : QWidget(parent), path_(std::move(path)), pages_(new QStackedWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(pages_);
  pages_->addWidget(buildLoadingPage());
  pages_->addWidget(buildErrorPage());
  pages_->addWidget(buildContentPage());
}

TraceTab::~TraceTab() = default;

QString TraceTab::title() const { return QFileInfo(path_).fileName(); }

QWidget* TraceTab::buildLoadingPage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->addStretch();
  loading_label_ = new QLabel(tr("Loading %1…").arg(QFileInfo(path_).fileName()), page);
  loading_label_->setAlignment(Qt::AlignCenter);
  progress_ = new QProgressBar(page);
  progress_->setRange(0, 1000);
  progress_->setTextVisible(false);
  progress_->setMaximumWidth(420);
  auto* cancel = new QPushButton(tr("Cancel"), page);
  connect(cancel, &QPushButton::clicked, this, &TraceTab::cancelLoading);
  layout->addWidget(loading_label_);
  layout->addWidget(progress_, 0, Qt::AlignHCenter);
  layout->addWidget(cancel, 0, Qt::AlignHCenter);
  layout->addStretch();
  return page;
}

QWidget* TraceTab::buildErrorPage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  auto* icon = new QLabel(page);
  icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(48, 48));
  icon->setAlignment(Qt::AlignCenter);
  error_label_ = new QLabel(page);
  error_label_->setWordWrap(true);
  error_label_->setAlignment(Qt::AlignCenter);
  error_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addStretch();
  layout->addWidget(icon);
  layout->addWidget(error_label_);
  layout->addStretch();
  return page;
}

QWidget* TraceTab::buildContentPage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(4, 4, 4, 4);

  summary_ = new QLabel(page);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setWordWrap(true);
  layout->addWidget(summary_);

  views_ = new QTabWidget(page);
  views_->setDocumentMode(true);
  layout->addWidget(views_, 1);

  // The timeline page: its controls, the chart above the events table.
  timeline_page_ = new QWidget;
  auto* tl = new QVBoxLayout(timeline_page_);
  tl->setContentsMargins(0, 4, 0, 0);
  auto* controls = new QHBoxLayout;
  devices_ = new QComboBox(timeline_page_);
  devices_->setToolTip(tr("Which devices to draw"));
  stacked_ = new QCheckBox(tr("Stack by category"), timeline_page_);
  stacked_->setToolTip(tr("Live bytes stacked by category: parameters, gradients, optimizer state, inputs, activations, "
                          "temporaries, unknown"));
  bands_ = new QCheckBox(tr("Phases"), timeline_page_);
  bands_->setChecked(true);
  bands_->setToolTip(tr("Show phases and annotations as bands"));
  x_axis_ = new QComboBox(timeline_page_);
  x_axis_->addItem(tr("x: allocation event"));
  x_axis_->addItem(tr("x: time"));
  x_axis_->setToolTip(tr("Plot against allocation-event index (as the seed does) or against time"));
  auto* reset = new QToolButton(timeline_page_);
  reset->setText(tr("Reset zoom"));
  controls->addWidget(devices_);
  controls->addWidget(stacked_);
  controls->addWidget(bands_);
  controls->addStretch();
  controls->addWidget(x_axis_);
  controls->addWidget(reset);
  tl->addLayout(controls);
  auto* split = new QSplitter(Qt::Vertical, timeline_page_);
  timeline_ = new TimelineChart(split);
  timeline_->setMinimumHeight(260);
  fragmentation_ = new FragmentationChart(split);  // shown once the allocator's replay arrives
  fragmentation_->hide();
  events_ = new EventsView(split);
  split->addWidget(timeline_);
  split->addWidget(fragmentation_);
  split->addWidget(events_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(2, 1);
  split->setSizes({470, 230, 230});
  tl->addWidget(split, 1);

  peaks_ = new BarChart;
  plan_ = new BarChart;
  precision_ = new PrecisionView;
  runs_ = new RunsView;
  oom_ = new OomView;
  ranks_ = new RanksView;
  allocator_ = new AllocatorStateView;
  live_ = new LiveBytesView;

  connect(x_axis_, &QComboBox::currentIndexChanged, this, [this](int i) { timeline_->setXAxisByTime(i == 1); });
  connect(bands_, &QCheckBox::toggled, timeline_, &TimelineChart::setBandsVisible);
  connect(stacked_, &QCheckBox::toggled, timeline_, &TimelineChart::setStackedCategories);
  connect(reset, &QToolButton::clicked, timeline_, &TimelineChart::resetZoom);
  connect(devices_, &QComboBox::currentIndexChanged, this, [this](int i) {
    const int id = devices_->itemData(i).toInt();
    timeline_->setVisibleDevices(id == INT32_MIN ? std::set<int16_t>{} : std::set<int16_t>{static_cast<int16_t>(id)});
  });
  connect(events_, &EventsView::eventActivated, this, [this](qint64 event) {
    // Centre the timeline on the chosen event, keeping the zoom width.
    if (!analysis_ || event < 0) return;
    const double x = timeline_->xOfEvent(static_cast<uint64_t>(event));
    const double w = timeline_->window().width();
    timeline_->zoomTo(x - w / 2, x + w / 2);
    showView(View::Timeline);
  });
  return page;
}

void TraceTab::setState(State state) {
  state_ = state;
  pages_->setCurrentIndex(state == State::Loading ? 0 : state == State::Ready ? 2 : 1);
  emit stateChanged(state);
}

void TraceTab::startLoading() {
  job_ = std::make_unique<TraceLoadJob>(path_);
  connect(job_.get(), &TraceLoadJob::progressChanged, progress_, &QProgressBar::setValue);
  connect(job_.get(), &TraceLoadJob::loaded, this, &TraceTab::showAnalysis);
  connect(job_.get(), &TraceLoadJob::failed, this, &TraceTab::showError);
  connect(job_.get(), &TraceLoadJob::cancelled, this, [this] {
    error_label_->setText(tr("Loading %1 was cancelled.").arg(path_));
    setState(State::Cancelled);
  });
  setState(State::Loading);
  job_->start();
}

void TraceTab::cancelLoading() {
  if (job_) job_->cancel();
}

void TraceTab::showError(const QString& message) {
  error_label_->setText(tr("<b>Could not open this trace</b><br><br>%1").arg(message.toHtmlEscaped()));
  setState(State::Failed);
}

std::set<int16_t> TraceTab::defaultDevices() const {
  // With a GPU in the trace, the CPU's few host allocations stay out of the way until asked for.
  std::set<int16_t> gpus;
  for (const auto& d : analysis_->devices())
    if (d->device != kCpuDevice) gpus.insert(d->device);
  return gpus.empty() || gpus.size() == analysis_->devices().size() ? std::set<int16_t>{} : gpus;
}

void TraceTab::addView(View view, QWidget* page, const QString& title) {
  views_->addTab(page, title);
  view_pages_.emplace_back(view, page);
}

void TraceTab::showAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  analysis_ = std::move(analysis);
  const Trace& trace = analysis_->trace();
  auto shared_trace = analysis_->sharedTrace();

  // Device choice: every device, or one.
  {
    const QSignalBlocker block(devices_);
    devices_->clear();
    devices_->addItem(tr("All devices"), INT32_MIN);
    for (const auto& d : analysis_->devices())
      devices_->addItem(toQString(trace.deviceName(d->device)), static_cast<int>(d->device));
    const auto defaults = defaultDevices();
    if (defaults.size() == 1) devices_->setCurrentIndex(devices_->findData(static_cast<int>(*defaults.begin())));
    devices_->setVisible(analysis_->devices().size() > 1);
  }
  timeline_->setTitle(title());
  timeline_->setVisibleDevices(defaultDevices());
  // The anatomy plan's line: what parameters, gradients and optimizer state alone take.
  std::vector<PlanLine> plans;
  for (const auto& r : trace.runs) {
    const Measurement *p = r.measurement("plan_parameter_bytes"), *g = r.measurement("plan_gradient_bytes"),
                      *o = r.measurement("plan_optimizer_state_bytes");
    if (p && g && o && p->value > 0) {
      const double bytes = p->value + g->value + o->value;
      plans.push_back({tr("plan: parameters + gradients + optimizer state = %1P = %2")
                           .arg(bytes / p->value * 4, 0, 'f', 0)
                           .arg(bytesText(static_cast<qint64>(bytes))),
                       bytes});
      break;
    }
  }
  timeline_->setPlanLines(plans);
  timeline_->setAnalysis(analysis_);
  stacked_->setEnabled(timeline_->hasCategories());
  stacked_->setVisible(timeline_->hasCategories());
  events_->setAnalysis(analysis_);
  summary_->setText(summarize());

  views_->clear();
  view_pages_.clear();
  addView(View::Timeline, timeline_page_, tr("Timeline"));
  const QString workload = this->workload();
  const bool ranked = ranks_->setTrace(trace);
  if (ranked) addView(View::Ranks, ranks_, tr("Ranks"));
  const int16_t plan_device = analysis_->device(0) ? 0 : kCpuDevice;
  // A distributed trace's ranks share device ids: its plan lives in the Ranks view.
  if (!ranked && showAnatomyPlan(*plan_, trace, plan_device)) addView(View::Plan, plan_, tr("Plan vs count"));
  if (!ranked && workload != QLatin1String("precision") && workload != QLatin1String("anatomy") &&
      showPeakComparison(*peaks_, trace))
    addView(View::Peaks, peaks_, tr("Peak comparison"));
  if (precision_->setTrace(trace)) addView(View::Precision, precision_, tr("Precision"));
  if (!trace.runs.empty()) {
    runs_->setTrace(shared_trace);
    addView(View::Runs, runs_, tr("Runs"));
  }
  if (oom_->setAnalysis(analysis_)) addView(View::OutOfMemory, oom_, tr("Out of memory"));
  if (trace.segments_known) addView(View::Allocator, allocator_, tr("Allocator"));
  addView(View::LiveBytes, live_, tr("Live bytes"));

  // The view that answers this trace's question first.
  if (hasView(View::OutOfMemory)) showView(View::OutOfMemory);
  else if (hasView(View::Precision)) showView(View::Precision);
  else if (hasView(View::Ranks)) showView(View::Ranks);
  else if (hasView(View::Peaks)) showView(View::Peaks);
  else showView(View::Timeline);
  setState(State::Ready);
}

bool TraceTab::hasView(View view) const {
  for (const auto& [v, page] : view_pages_)
    if (v == view) return true;
  return false;
}

void TraceTab::showView(View view) {
  for (const auto& [v, page] : view_pages_)
    if (v == view) views_->setCurrentWidget(page);
}

TraceTab::View TraceTab::currentView() const {
  for (const auto& [v, page] : view_pages_)
    if (page == views_->currentWidget()) return v;
  return View::Timeline;
}

QString TraceTab::workload() const { return analysis_ ? toQString(workloadOf(analysis_->trace())) : QString(); }

QString TraceTab::summarize() const {
  QStringList parts;
  const Trace& t = analysis_->trace();
  for (const auto& d : analysis_->devices()) {
    const SeriesAnalysis* a = d->line(SeriesKind::Allocated);
    const SeriesAnalysis* r = d->line(SeriesKind::Reserved);
    if (!a) continue;
    QString text = tr("<b>%1</b>: peak allocated <b>%2</b>").arg(toQString(t.deviceName(d->device)).toHtmlEscaped(), bytesText(a->peak.value));
    if (a->peak.point >= 0) text += tr(" at event %1 (%2)").arg(a->peak.x_index).arg(toQString(describePeakEvent(t, a->peak)).toHtmlEscaped());
    if (r) text += tr(" · reserved %1").arg(bytesText(r->peak.value));
    if (!d->oom_events.empty()) text += tr(" · <span style=\"color:#b71c1c\"><b>out of memory</b></span>");
    parts << text;
  }
  QString head = tr("%L1 events").arg(t.events.size());
  if (auto it = t.meta.find("device_name"); it != t.meta.end()) head += tr(" · recorded on %1").arg(toQString(it->second).toHtmlEscaped());
  if (auto it = t.meta.find("workload"); it != t.meta.end()) head += tr(" · workload <b>%1</b>").arg(toQString(it->second).toHtmlEscaped());
  parts << head;
  return parts.join(QStringLiteral(" &nbsp;│&nbsp; "));
}

void TraceTab::setXAxisByTime(bool by_time) { x_axis_->setCurrentIndex(by_time ? 1 : 0); }

void TraceTab::setStackedCategories(bool stacked) {
  if (stacked_->isEnabled()) stacked_->setChecked(stacked);
}

bool TraceTab::exportChart(const QString& path) {
  if (state_ != State::Ready) return false;
  QGraphicsView* chart = timeline_;
  switch (currentView()) {
    case View::Allocator: return allocator_->saveImage(path);
    case View::LiveBytes: return live_->saveImage(path);
    case View::Peaks: chart = peaks_; break;
    case View::Plan: chart = plan_; break;
    case View::Precision: chart = precision_->chart(); break;
    case View::Ranks: chart = ranks_->peaks(); break;
    case View::OutOfMemory: chart = oom_->timeline(); break;
    default: break;
  }
  return saveViewImage(chart, path);
}

QString TraceTab::exportCsv(const QString& what, const QString& path) {
  if (!analysis_) return tr("nothing is loaded");
  if (what == QLatin1String("table")) {
    const QAbstractItemModel* model = events_->table()->model();
    switch (currentView()) {
      case View::Runs:
      case View::Peaks:
      case View::Plan: {
        QString error;
        return runs_->runsModel()->exportCsv(path, &error) ? QString() : error;
      }
      case View::Precision: model = precision_->table()->model(); break;
      case View::OutOfMemory: model = oom_->blocks()->model(); break;
      case View::LiveBytes: model = live_->table()->model(); break;
      default: break;
    }
    QString error;
    return writeModelCsv(*model, path, &error) ? QString() : error;
  }
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const Status st = sawtooth::exportCsv(analysis_->trace(), what.toStdString(), path.toStdString());
  QApplication::restoreOverrideCursor();
  return st.ok() ? QString() : QString::fromStdString(st.error().message);
}

}  // namespace sawtooth::views
