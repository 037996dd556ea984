#include "views/trace_tab.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QSplitter>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "views/experiment_charts.h"
#include "views/qt_format.h"
#include "views/views_logging.h"

namespace sawtooth::views {

TraceTab::TraceTab(QString path, QWidget* parent) : QWidget(parent), path_(std::move(path)), pages_(new QStackedWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(pages_);
  pages_->addWidget(buildLoadingPage());
  pages_->addWidget(buildErrorPage());
  pages_->addWidget(buildContentPage());
  pages_->addWidget(buildOfferPage());
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
  connect(cancel, &QPushButton::clicked, this, &TraceTab::cancelRequested);
  layout->addWidget(loading_label_);
  layout->addWidget(progress_, 0, Qt::AlignHCenter);
  layout->addWidget(cancel, 0, Qt::AlignHCenter);
  layout->addStretch();
  return page;
}

QWidget* TraceTab::buildErrorPage() {
  auto* page = new QWidget;
  error_page_ = page;
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

QWidget* TraceTab::buildOfferPage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  offer_label_ = new QLabel(page);
  offer_label_->setWordWrap(true);
  offer_label_->setAlignment(Qt::AlignCenter);
  offer_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* convert = new QPushButton(tr("Convert and open"), page);
  convert->setObjectName(QStringLiteral("convert"));
  convert->setDefault(true);
  auto* whole = new QPushButton(tr("Read it whole anyway"), page);
  whole->setObjectName(QStringLiteral("readWhole"));
  connect(convert, &QPushButton::clicked, this, &TraceTab::convertRequested);
  connect(whole, &QPushButton::clicked, this, &TraceTab::readWholeRequested);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch();
  buttons->addWidget(convert);
  buttons->addWidget(whole);
  buttons->addStretch();
  layout->addStretch();
  layout->addWidget(offer_label_);
  layout->addLayout(buttons);
  layout->addStretch();
  return page;
}

void TraceTab::offerConversion(const QString& why) {
  error_message_ = why;
  offer_label_->setText(why.toHtmlEscaped());
  setState(State::ConversionOffered);
}

void TraceTab::showLoading(const QString& text) {
  loading_label_->setText(text);
  progress_->setValue(0);
  setState(State::Loading);
}

QWidget* TraceTab::buildContentPage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(4, 4, 4, 4);

  summary_ = new QLabel(page);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setWordWrap(true);
  layout->addWidget(summary_);
  notices_ = new QLabel(page);
  notices_->setObjectName(QStringLiteral("notices"));
  notices_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notices_->setWordWrap(true);
  notices_->hide();
  layout->addWidget(notices_);
  other_views_ = new QLabel(page);
  other_views_->setObjectName(QStringLiteral("otherViews"));
  other_views_->setWordWrap(true);
  other_views_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  other_views_->hide();
  layout->addWidget(other_views_);
  figures_pass_ = new QLabel(page);
  figures_pass_->setObjectName(QStringLiteral("figuresPass"));
  figures_pass_->hide();
  layout->addWidget(figures_pass_);

  views_ = new QTabWidget(page);
  views_->setDocumentMode(true);
  layout->addWidget(views_, 1);

  // The timeline page: its controls, the chart above the events table.
  timeline_page_ = new QWidget;
  auto* tl = new QVBoxLayout(timeline_page_);
  tl->setContentsMargins(0, 4, 0, 0);
  // A tool bar: what does not fit a narrow window goes behind its » button instead of widening it.
  auto* controls = new QToolBar(timeline_page_);
  controls->setObjectName(QStringLiteral("timelineControls"));
  controls->setIconSize(QSize(16, 16));
  devices_ = new QComboBox(timeline_page_);
  devices_->setToolTip(tr("Which devices to draw"));
  devices_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  devices_->setMinimumContentsLength(12);
  stacked_ = new QCheckBox(tr("Stack by category"), timeline_page_);
  stacked_->setToolTip(tr("Live bytes stacked by category: parameters, gradients, optimizer state, inputs, activations, "
                          "temporaries, unknown"));
  bands_ = new QCheckBox(tr("Phases"), timeline_page_);
  bands_->setChecked(true);
  bands_->setToolTip(tr("Show phases and annotations as bands"));
  y_from_zero_ = new QCheckBox(tr("y from zero"), timeline_page_);
  y_from_zero_->setToolTip(tr("Start the memory axis at zero instead of fitting it to what is visible"));
  x_axis_ = new QComboBox(timeline_page_);
  x_axis_->addItem(tr("x: allocation event"));
  x_axis_->addItem(tr("x: time"));
  x_axis_->setToolTip(tr("Plot against allocation-event index (as the seed does) or against time"));
  auto* reset = new QToolButton(timeline_page_);
  reset->setText(tr("Reset zoom"));
  devices_action_ = controls->addWidget(devices_);
  stacked_action_ = controls->addWidget(stacked_);
  controls->addWidget(bands_);
  controls->addWidget(y_from_zero_);
  auto* gap = new QWidget(timeline_page_);
  gap->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  controls->addWidget(gap);
  controls->addWidget(x_axis_);
  controls->addWidget(reset);
  tl->addWidget(controls);
  auto* split = new QSplitter(Qt::Vertical, timeline_page_);
  timeline_ = new TimelineChart(split);
  timeline_->setMinimumHeight(180);
  module_band_ = new ModuleBandView(split);  // shown once a trace with modules has its band
  fragmentation_ = new FragmentationChart(split);  // shown once the allocator's replay arrives
  fragmentation_->hide();
  events_ = new EventsView(split);
  split->addWidget(timeline_);
  split->addWidget(module_band_);
  split->addWidget(fragmentation_);
  split->addWidget(events_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(3, 1);
  split->setSizes({470, 0, 230, 230});
  tl->addWidget(split, 1);

  peaks_ = new BarChart;
  plan_ = new BarChart;
  precision_ = new PrecisionView;
  runs_ = new RunsView;
  oom_ = new OomView;
  ranks_ = new RanksView;
  allocator_ = new AllocatorStateView;
  live_ = new LiveBytesView;
  modules_ = new ModulesView;

  connect(x_axis_, &QComboBox::currentIndexChanged, this, [this](int i) { timeline_->setXAxisByTime(i == 1); });
  connect(bands_, &QCheckBox::toggled, timeline_, &TimelineChart::setBandsVisible);
  connect(stacked_, &QCheckBox::toggled, timeline_, &TimelineChart::setStackedCategories);
  connect(y_from_zero_, &QCheckBox::toggled, timeline_, &TimelineChart::setYFromZero);
  connect(events_, &EventsView::queryChanged, this, &TraceTab::eventQueryChanged);
  connect(reset, &QToolButton::clicked, timeline_, &TimelineChart::resetZoom);
  connect(devices_, &QComboBox::currentIndexChanged, this, [this](int i) {
    const int id = devices_->itemData(i).toInt();
    timeline_->setVisibleDevices(id == INT32_MIN ? std::set<int16_t>{} : std::set<int16_t>{static_cast<int16_t>(id)});
  });
  connect(events_, &EventsView::eventActivated, this, [this](qint64 event) {
    // Centre the timeline on the chosen event, keeping the zoom width.
    if (!report_ || event < 0) return;
    const double x = timeline_->xOfEvent(static_cast<uint64_t>(event));
    const double w = timeline_->window().width();
    timeline_->zoomTo(x - w / 2, x + w / 2);
    showView(View::Timeline);
  });
  return page;
}

void TraceTab::setState(State state) {
  state_ = state;
  if (console_ && (state == State::Failed || state == State::Cancelled) && console_->parentWidget() != error_page_)
    static_cast<QVBoxLayout*>(error_page_->layout())->insertWidget(error_page_->layout()->count() - 1, console_, 3);
  const bool content = state == State::Ready || state == State::Summaries || (state == State::Loading && overview_);
  pages_->setCurrentIndex(content                             ? 2
                          : state == State::Loading           ? 0
                          : state == State::ConversionOffered ? 3
                                                              : 1);
  emit stateChanged(state);
}

void TraceTab::setConsole(const QList<ConsoleChunk>& chunks, bool show_first) {
  if (!console_) console_ = new ConsoleView(this);
  console_->setChunks(chunks);
  console_first_ = show_first;
  if (state_ == State::Ready && !hasView(View::Console)) {
    addView(View::Console, console_, tr("Console"));
    if (show_first) showView(View::Console);
  } else if (state_ == State::Failed || state_ == State::Cancelled) {
    setState(state_);
  } else {
    console_->hide();  // until the trace is shown
  }
}

void TraceTab::setLoadProgress(int permille) {
  progress_->setValue(permille);
  if (overview_ && state_ == State::Loading)
    other_views_->setText(tr("Reading every event for the other views (events table, allocator, live bytes, modules, "
                             "runs): %1 %… The timeline is drawn from the file's summaries meanwhile.")
                              .arg(permille / 10));
}

void TraceTab::showOverview(std::shared_ptr<const TimelineOverview> overview) {
  overview_ = std::move(overview);
  std::vector<std::pair<int16_t, QString>> devices;
  for (const auto& d : overview_->devices) devices.emplace_back(static_cast<int16_t>(d.device), toQString(d.name));
  setDeviceChoices(devices);
  timeline_->setTitle(title());
  // As showReport: with a GPU, the CPU's few host allocations stay out of the way until asked for.
  std::set<int16_t> gpus;
  for (const auto& d : overview_->devices)
    if (d.device != kCpuDevice) gpus.insert(static_cast<int16_t>(d.device));
  timeline_->setVisibleDevices(gpus.size() == overview_->devices.size() ? std::set<int16_t>{} : gpus);
  timeline_->setOverview(overview_);
  stacked_->setEnabled(timeline_->hasCategories());
  stacked_action_->setVisible(timeline_->hasCategories());
  events_->hide();  // its rows come with the events
  summary_->setText(summarizeOverview());
  views_->clear();
  view_pages_.clear();
  addView(View::Timeline, timeline_page_, tr("Timeline"));
  showView(View::Timeline);
  other_views_->setText(tr("Reading every event for the other views (events table, allocator, live bytes, modules, "
                           "runs)… The timeline is drawn from the file's summaries meanwhile."));
  other_views_->show();
  setState(state_);
}

void TraceTab::showSummariesOnly(const QString& why) {
  other_views_->setText(why);
  other_views_->show();
  setState(State::Summaries);
}

void TraceTab::showPagedEvents() { events_->show(); }

void TraceTab::showOnDemandViews(bool moments, std::shared_ptr<const TraceReport> runs) {
  if (state_ != State::Summaries) return;
  if (runs && !on_demand_report_) {
    on_demand_report_ = runs;
    timeline_->setPlanLines(runs->plan_lines);
    const QString workload = toQString(runs->workload);
    if (workload != QLatin1String("precision") && workload != QLatin1String("anatomy") &&
        showPeakComparison(*peaks_, runs->peak_groups, runs->workload))
      addView(View::Peaks, peaks_, tr("Peak comparison"));
    if (precision_->setReport(*runs)) addView(View::Precision, precision_, tr("Precision"));
    if (!runs->runs.rows.empty()) {
      runs_->setTable(std::make_shared<const Table>(runs->runs));
      addView(View::Runs, runs_, tr("Runs"));
    }
  }
  if (moments && !hasView(View::Modules)) {
    addView(View::Allocator, allocator_, tr("Allocator"));
    addView(View::LiveBytes, live_, tr("Live bytes"));
    addView(View::Modules, modules_, tr("Modules"));
  }
}

void TraceTab::setFiguresPass(const QString& text) {
  figures_pass_->setText(text);
  figures_pass_->setVisible(!text.isEmpty());
}

void TraceTab::showOnDemandFigures(std::shared_ptr<const TraceReport> report) {
  setFiguresPass(QString());
  if (state_ != State::Summaries || !report) return;
  on_demand_report_ = report;
  if (!hasView(View::Plan) && showAnatomyPlan(*plan_, report->plan_rows)) addView(View::Plan, plan_, tr("Plan vs count"));
  if (!hasView(View::OutOfMemory) && oom_->setReport(*report, overview_))
    addView(View::OutOfMemory, oom_, tr("Out of memory"));
}

QString TraceTab::summarizeOverview() const {
  QStringList parts;
  for (const auto& d : overview_->devices) {
    QString text = tr("<b>%1</b>: peak allocated <b>%2</b>").arg(toQString(d.name).toHtmlEscaped(), bytesText(d.peak));
    if (d.peak_point >= 0) text += tr(" at event %1").arg(d.peak_event);
    if (d.peak_reserved > 0) text += tr(" · reserved %1").arg(bytesText(d.peak_reserved));
    parts << text;
  }
  parts << tr("%L1 events · from the file's summaries").arg(overview_->events);
  return parts.join(QStringLiteral(" &nbsp;│&nbsp; "));
}

void TraceTab::setDeviceChoices(const std::vector<std::pair<int16_t, QString>>& devices) {
  const QSignalBlocker block(devices_);
  devices_->clear();
  const size_t count = devices.size();
  devices_->addItem(count > TimelineChart::kMaxDrawnDevices
                        ? tr("The %1 largest of %L2 devices").arg(TimelineChart::kMaxDrawnDevices).arg(count)
                        : tr("All devices"),
                    INT32_MIN);
  for (const auto& [id, name] : devices) devices_->addItem(name, static_cast<int>(id));
  devices_action_->setVisible(count > 1);
}

void TraceTab::showCancelled() {
  if (overview_) return showSummariesOnly(tr("Reading the other views' events was cancelled: the timeline alone is shown."));
  error_message_ = tr("Loading %1 was cancelled.").arg(path_);
  error_label_->setText(error_message_);
  setState(State::Cancelled);
}

void TraceTab::showError(const QString& message) {
  if (overview_)
    return showSummariesOnly(tr("The other views could not be read: %1").arg(message.toHtmlEscaped()));
  error_message_ = message;
  error_label_->setText(tr("<b>Could not open this trace</b><br><br>%1").arg(message.toHtmlEscaped()));
  setState(State::Failed);
}

std::set<int16_t> TraceTab::defaultDevices() const {
  // With a GPU in the trace, the CPU's few host allocations stay out of the way until asked for.
  std::set<int16_t> gpus;
  for (const auto& d : report_->analysis->devices())
    if (d->device != kCpuDevice) gpus.insert(d->device);
  return gpus.empty() || gpus.size() == report_->analysis->devices().size() ? std::set<int16_t>{} : gpus;
}

void TraceTab::addView(View view, QWidget* page, const QString& title) {
  views_->addTab(page, title);
  view_pages_.emplace_back(view, page);
}

void TraceTab::showReport(std::shared_ptr<const TraceReport> report) {
  QElapsedTimer clock;
  clock.start();
  report_ = std::move(report);
  const TraceAnalysis& analysis = *report_->analysis;
  const Trace& trace = analysis.trace();

  // Device choice: every device, or one.
  {
    std::vector<std::pair<int16_t, QString>> devices;
    for (const auto& d : analysis.devices()) devices.emplace_back(d->device, toQString(trace.deviceName(d->device)));
    // The choice made over the summaries' timeline stays.
    const QVariant chosen = overview_ ? devices_->currentData() : QVariant();
    setDeviceChoices(devices);
    const auto defaults = defaultDevices();
    const QSignalBlocker block(devices_);
    if (chosen.isValid() && devices_->findData(chosen) >= 0) devices_->setCurrentIndex(devices_->findData(chosen));
    else if (defaults.size() == 1) devices_->setCurrentIndex(devices_->findData(static_cast<int>(*defaults.begin())));
  }
  timeline_->setTitle(title());
  if (!overview_) timeline_->setVisibleDevices(defaultDevices());
  timeline_->setPlanLines(report_->plan_lines);
  timeline_->setAnalysis(report_->analysis);
  events_->show();
  other_views_->hide();
  stacked_->setEnabled(timeline_->hasCategories());
  stacked_action_->setVisible(timeline_->hasCategories());
  events_->setTrace(analysis.sharedTrace());
  summary_->setText(summarize());
  notices_->setText(notices());
  notices_->setVisible(!notices_->text().isEmpty());

  // The timeline's tab stays where it is: taken out and put back, its chart was reshaped and drawn
  // again on the GUI thread (a trace read whole, 2.9 M events: ~15 ms of the report's delivery).
  const bool keep_timeline = views_->count() > 0 && views_->widget(0) == timeline_page_;
  while (views_->count() > (keep_timeline ? 1 : 0)) views_->removeTab(views_->count() - 1);
  view_pages_.clear();
  if (keep_timeline) view_pages_.emplace_back(View::Timeline, timeline_page_);
  else addView(View::Timeline, timeline_page_, tr("Timeline"));
  const QString workload = this->workload();
  const bool ranked = report_->ranks.has_value();
  if (ranked) {
    ranks_->setComparison(*report_->ranks);
    addView(View::Ranks, ranks_, tr("Ranks"));
  }
  // A distributed trace's ranks share device ids: its plan lives in the Ranks view.
  if (!ranked && showAnatomyPlan(*plan_, report_->plan_rows)) addView(View::Plan, plan_, tr("Plan vs count"));
  if (!ranked && workload != QLatin1String("precision") && workload != QLatin1String("anatomy") &&
      showPeakComparison(*peaks_, report_->peak_groups, report_->workload))
    addView(View::Peaks, peaks_, tr("Peak comparison"));
  if (precision_->setReport(*report_)) addView(View::Precision, precision_, tr("Precision"));
  if (!trace.runs.empty()) {
    runs_->setTable(std::make_shared<const Table>(report_->runs));
    addView(View::Runs, runs_, tr("Runs"));
  }
  if (oom_->setReport(*report_)) addView(View::OutOfMemory, oom_, tr("Out of memory"));
  if (trace.segments_known) addView(View::Allocator, allocator_, tr("Allocator"));
  addView(View::LiveBytes, live_, tr("Live bytes"));
  addView(View::Modules, modules_, tr("Modules"));
  if (console_) addView(View::Console, console_, tr("Console"));

  // The view that answers this trace's question first.
  if (console_ && console_first_) showView(View::Console);
  else if (hasView(View::OutOfMemory)) showView(View::OutOfMemory);
  else if (hasView(View::Precision)) showView(View::Precision);
  else if (hasView(View::Ranks)) showView(View::Ranks);
  else if (hasView(View::Peaks)) showView(View::Peaks);
  else showView(View::Timeline);
  setState(State::Ready);
  qCDebug(lcTables) << "report of" << title() << "shown in" << clock.elapsed() << "ms";
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

QString TraceTab::workload() const { return report_ ? toQString(report_->workload) : QString(); }

QString TraceTab::summarize() const {
  QStringList parts;
  const Headline& h = report_->headline;
  for (const HeadlineItem& item : h.items) {
    QString text = tr("<b>%1</b>: peak allocated <b>%2</b>").arg(toQString(item.who).toHtmlEscaped(), bytesText(item.peak_allocated));
    if (item.peak_event_index)
      text += tr(" at event %1 (%2)").arg(*item.peak_event_index).arg(toQString(item.peak_event).toHtmlEscaped());
    if (item.peak_reserved) text += tr(" · reserved %1").arg(bytesText(*item.peak_reserved));
    if (item.out_of_memory) text += tr(" · <span style=\"color:#b71c1c\"><b>out of memory</b></span>");
    parts << text;
  }
  QString head = tr("%L1 events").arg(h.events);
  if (!h.recorded_on.empty()) head += tr(" · recorded on %1").arg(toQString(h.recorded_on).toHtmlEscaped());
  if (!h.workload.empty()) head += tr(" · workload <b>%1</b>").arg(toQString(h.workload).toHtmlEscaped());
  parts << head;
  return parts.join(QStringLiteral(" &nbsp;│&nbsp; "));
}

QString TraceTab::notices() const {
  const Headline& h = report_->headline;
  QStringList lines;
  if (!h.incomplete.empty())
    lines << QStringLiteral("<span style=\"color:#b71c1c\"><b>%1</b></span>").arg(toQString(h.incomplete).toHtmlEscaped());
  constexpr size_t kShown = 3;  // the rest: sawtooth-trace info lists them all
  for (size_t i = 0; i < h.warnings.size() && i < kShown; ++i)
    lines << QStringLiteral("<span style=\"color:#8a5300\">⚠ %1</span>").arg(toQString(h.warnings[i]).toHtmlEscaped());
  if (h.warnings.size() > kShown)
    lines << tr("<span style=\"color:#8a5300\">and %n more (sawtooth-trace info lists them)</span>", nullptr,
                static_cast<int>(h.warnings.size() - kShown));
  return lines.join(QStringLiteral("<br>"));
}

void TraceTab::setXAxisByTime(bool by_time) { x_axis_->setCurrentIndex(by_time ? 1 : 0); }

void TraceTab::setStackedCategories(bool stacked) {
  if (stacked_->isEnabled()) stacked_->setChecked(stacked);
}

QGraphicsView* TraceTab::currentChart() const {
  if (state_ == State::Summaries) switch (currentView()) {
      case View::Timeline: return timeline_;
      case View::Peaks: return peaks_;
      case View::Plan: return plan_;
      case View::Precision: return precision_->chart();
      case View::OutOfMemory: return oom_->timeline()->isHidden() ? nullptr : oom_->timeline();
      default: return nullptr;
    }
  if (state_ != State::Ready) return nullptr;
  switch (currentView()) {
    case View::Allocator:
    case View::LiveBytes:
    case View::Modules: return nullptr;  // painted, not charts: currentPicture()
    case View::Console: return nullptr;
    case View::Peaks: return peaks_;
    case View::Plan: return plan_;
    case View::Precision: return precision_->chart();
    case View::Ranks: return ranks_->peaks();
    case View::OutOfMemory: return oom_->timeline();
    default: return timeline_;
  }
}

PaintedWidget TraceTab::currentPicture() const {
  if (state_ != State::Ready && state_ != State::Summaries) return {};
  switch (currentView()) {
    case View::Allocator: return allocator_->picture();
    case View::LiveBytes: return live_->picture();
    case View::Modules: return modules_->picture();
    default: return {};
  }
}

TraceTab::TableExport TraceTab::currentTable() const {
  TableExport out;
  if (!report_) {  // a file read on demand: the tables of the views it has
    const auto& r = on_demand_report_;
    switch (currentView()) {
      case View::LiveBytes: out.table = live_->tableData(); break;
      case View::Modules: out.table = modules_->tableData(); break;
      case View::Runs:
      case View::Peaks:
      case View::Plan: out.table = runs_->table(); break;
      case View::Precision:
        if (r) out.table = std::make_shared<const Table>(r->precision_table);
        break;
      case View::OutOfMemory:
        if (r && r->oom) out.table = std::make_shared<const Table>(r->oom->blocks);
        break;
      default: break;
    }
    return out;
  }
  switch (currentView()) {
    case View::Runs:
    case View::Peaks:
    case View::Plan: out.table = std::make_shared<const Table>(report_->runs); break;
    case View::Precision: out.table = std::make_shared<const Table>(report_->precision_table); break;
    case View::OutOfMemory:
      if (report_->oom) out.table = std::make_shared<const Table>(report_->oom->blocks);
      break;
    case View::LiveBytes:
      out.table = live_->tableData();
      break;
    case View::Modules:
      out.table = modules_->tableData();
      break;
    default:
      out.events = events_->model()->rows();
      out.trace = events_->model()->trace();
      break;
  }
  return out;
}

}  // namespace sawtooth::views
