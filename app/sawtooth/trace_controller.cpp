#include "app/sawtooth/trace_controller.h"

#include <QFileInfo>

#include "app/sawtooth/app_logging.h"
#include "app/sawtooth/reading_limits.h"
#include "app/sawtooth/trace_jobs.h"
#include "views/chart_export.h"
#include "views/widget_export.h"

namespace sawtooth::app {

TraceController::TraceController(JobRunner& jobs, views::TraceTab* tab)
    : QObject(tab),
      jobs_(jobs),
      tab_(tab),
      allocator_(new AllocatorController(
          jobs, slot("allocator"), {tab->timeline(), tab->allocatorView(), tab->fragmentationChart(), tab->liveBytesView(),
                                   tab->modulesView()}, this)) {
  connect(tab_, &views::TraceTab::cancelRequested, this, &TraceController::cancelLoading);
  connect(tab_, &views::TraceTab::eventQueryChanged, this, &TraceController::queryEvents);
}

QString TraceController::slot(const char* what) const {
  return QStringLiteral("%1 %2").arg(reinterpret_cast<quintptr>(tab_), 0, 16).arg(QLatin1String(what));
}

void TraceController::load() {
  const std::string path = tab_->path().toStdString();
  jobs_.run<std::shared_ptr<const TraceReport>>(
      slot("load"), tr("Loading %1").arg(tab_->title()), tab_,
      [path, limits = readingLimitsFromSettings()](Progress& p) { return loadTraceReport(path, p, limits); },
      [this](std::shared_ptr<const TraceReport> report) {
        tab_->showReport(std::move(report));
        if (tab_->report()->ranks) loadRankLanes();
        allocator_->setAnalysis(tab_->analysis());
      },
      [this](const QString& error) { tab_->showError(withAppRaiseHint(error)); },
      [this](int permille) { tab_->setLoadProgress(permille); });
}

void TraceController::cancelLoading() {
  if (jobs_.cancel(slot("load"))) tab_->showCancelled();
}

void TraceController::queryEvents(const EventQuery& query) {
  auto analysis = tab_->analysis();
  if (!analysis) return;
  auto trace = analysis->sharedTrace();
  jobs_.run<EventRows>(
      slot("events"), tr("Filtering and sorting the events"), tab_,
      [trace, query](Progress& p) { return selectEvents(*trace, query, &p); },
      [this, trace](EventRows rows) { tab_->events()->setRows(rows, trace); },
      [this](const QString& error) { tab_->events()->setQueryFailed(error); });
}

void TraceController::loadRankLanes() {
  auto trace = tab_->analysis()->sharedTrace();
  jobs_.run<std::vector<RankLane>>(
      slot("lanes"), tr("Analysing each rank"), tab_, [trace](Progress& p) { return rankLanes(*trace, &p); },
      [this](std::vector<RankLane> lanes) { tab_->ranksView()->setLanes(lanes); });
}

void TraceController::runExport(const QString& path, std::function<Result<Ok>(Progress&)> work) {
  qCDebug(lcWindow) << "exporting" << path;
  // Exports never supersede each other: each writes its own file.
  jobs_.run<Ok>(
      QString(), tr("Writing %1").arg(QFileInfo(path).fileName()), this, std::move(work),
      [this, path](Ok) { emit exportFinished(path, QString()); }, [this, path](const QString& error) { emit exportFinished(path, error); });
}

bool TraceController::exportChart(const QString& path) {
  // Drawn now (a widget can only be drawn on the GUI thread), written in a job.
  QGraphicsView* chart = tab_->currentChart();
  const views::PaintedWidget picture = chart ? views::PaintedWidget{} : tab_->currentPicture();
  if (!chart && !picture.widget) return false;
  if (QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0) {
    const QByteArray svg = chart ? views::renderViewSvg(chart, {}, tab_->title()) : views::renderWidgetSvg(picture, tab_->title());
    runExport(path, [svg, path](Progress&) { return writeFile(svg, path); });
  } else {
    const QImage image = chart ? views::renderViewImage(chart) : views::renderWidgetImage(picture);
    runExport(path, [image, path](Progress&) { return writePng(image, path); });
  }
  return true;
}

bool TraceController::exportCsv(const QString& what, const QString& path) {
  auto analysis = tab_->analysis();
  if (!analysis) return false;
  const std::string out = path.toStdString();
  if (what == QLatin1String("table")) {
    const auto table = tab_->currentTable();
    if (table.table) {
      runExport(path, [t = table.table, out](Progress&) { return exportTableCsv(t, out); });
    } else {
      if (!table.events || !table.trace) return false;
      runExport(path, [trace = table.trace, rows = *table.events, out](Progress& p) {
        return exportEventRowsCsv(trace, rows, out, p);
      });
    }
    return true;
  }
  runExport(path, [trace = analysis->sharedTrace(), w = what.toStdString(), out](Progress& p) {
    return exportTraceCsv(trace, w, out, p);
  });
  return true;
}

}  // namespace sawtooth::app
