#include "views/trace_tab.h"

#include <QApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QSplitter>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include "io/csv_export.h"
#include "views/qt_format.h"

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

  auto* controls = new QHBoxLayout;
  summary_ = new QLabel(page);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  x_axis_ = new QComboBox(page);
  x_axis_->addItem(tr("x: allocation event"));
  x_axis_->addItem(tr("x: time"));
  x_axis_->setToolTip(tr("Plot against allocation-event index (as the seed does) or against time"));
  bands_ = new QCheckBox(tr("Phases"), page);
  bands_->setChecked(true);
  bands_->setToolTip(tr("Show phases and annotations as bands"));
  auto* reset = new QToolButton(page);
  reset->setText(tr("Reset zoom"));
  controls->addWidget(summary_, 1);
  controls->addWidget(bands_);
  controls->addWidget(x_axis_);
  controls->addWidget(reset);
  layout->addLayout(controls);

  auto* split = new QSplitter(Qt::Vertical, page);
  timeline_ = new TimelineChart(split);
  timeline_->setMinimumHeight(260);
  events_ = new EventsView(split);
  split->addWidget(timeline_);
  split->addWidget(events_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);

  connect(x_axis_, &QComboBox::currentIndexChanged, this, [this](int i) { timeline_->setXAxisByTime(i == 1); });
  connect(bands_, &QCheckBox::toggled, timeline_, &TimelineChart::setBandsVisible);
  connect(reset, &QToolButton::clicked, timeline_, &TimelineChart::resetZoom);
  connect(events_, &EventsView::eventActivated, this, [this](qint64 event) {
    // Centre the timeline on the chosen event, keeping the zoom width.
    if (!analysis_ || event < 0) return;
    const auto& t = analysis_->trace();
    const auto e = static_cast<size_t>(event);
    double x = static_cast<double>(t.events.tNs()[e]);
    if (!timeline_->xAxisByTime()) {
      const DeviceAnalysis* d = analysis_->device(t.events.device()[e]);
      if (!d) return;
      const auto& evs = d->series.allocator_events;
      x = static_cast<double>(std::lower_bound(evs.begin(), evs.end(), e) - evs.begin());
    }
    const double w = timeline_->window().width();
    timeline_->zoomTo(x - w / 2, x + w / 2);
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

void TraceTab::showAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  analysis_ = std::move(analysis);
  timeline_->setTitle(title());
  timeline_->setAnalysis(analysis_);
  events_->setAnalysis(analysis_);
  summary_->setText(summarize());
  setState(State::Ready);
}

QString TraceTab::summarize() const {
  QStringList parts;
  const Trace& t = analysis_->trace();
  for (const auto& d : analysis_->devices()) {
    const SeriesAnalysis* a = d->line(SeriesKind::Allocated);
    const SeriesAnalysis* r = d->line(SeriesKind::Reserved);
    if (!a) continue;
    QString text = tr("<b>%1</b>: peak allocated <b>%2</b>").arg(toQString(deviceLabel(d->device)), bytesText(a->peak.value));
    if (a->peak.point >= 0) text += tr(" at event %1 (%2)").arg(a->peak.x_index).arg(toQString(describePeakEvent(t, a->peak)).toHtmlEscaped());
    if (r) text += tr(" · reserved %1").arg(bytesText(r->peak.value));
    parts << text;
  }
  parts << tr("%L1 events").arg(t.events.size());
  return parts.join(QStringLiteral(" &nbsp;│&nbsp; "));
}

void TraceTab::setXAxisByTime(bool by_time) { x_axis_->setCurrentIndex(by_time ? 1 : 0); }

bool TraceTab::exportChart(const QString& path) {
  if (state_ != State::Ready) return false;
  return path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive) ? timeline_->saveSvg(path) : timeline_->savePng(path);
}

QString TraceTab::exportCsv(const QString& what, const QString& path) {
  if (!analysis_) return tr("nothing is loaded");
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const Status st = sawtooth::exportCsv(analysis_->trace(), what.toStdString(), path.toStdString());
  QApplication::restoreOverrideCursor();
  return st.ok() ? QString() : QString::fromStdString(st.error().message);
}

}  // namespace sawtooth::views
