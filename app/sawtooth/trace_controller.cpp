#include "app/sawtooth/trace_controller.h"

#include <QFileInfo>

#include "app/sawtooth/app_logging.h"
#include "app/sawtooth/reading_limits.h"
#include "app/sawtooth/trace_jobs.h"
#include "core/analysis/trace_report.h"
#include "core/io/trace_convert.h"
#include "views/chart_export.h"
#include "views/qt_format.h"
#include "views/widget_export.h"

namespace sawtooth::app {

TraceController::TraceController(JobRunner& jobs, views::TraceTab* tab)
    : QObject(tab),
      jobs_(jobs),
      tab_(tab),
      allocator_(new AllocatorController(
          jobs, slot("allocator"), {tab->timeline(), tab->allocatorView(), tab->fragmentationChart(), tab->liveBytesView(),
                                   tab->modulesView(), tab->moduleBand()}, this)),
      moments_(new SummaryMoments(jobs, slot("moments"),
                                  {tab->allocatorView(), tab->liveBytesView(), tab->modulesView(), tab->fragmentationChart(),
                                   tab->timeline()},
                                  this)) {
  source_ = tab_->path();
  connect(tab_, &views::TraceTab::cancelRequested, this, &TraceController::cancelLoading);
  connect(tab_, &views::TraceTab::convertRequested, this, &TraceController::convert);
  connect(tab_, &views::TraceTab::readWholeRequested, this, [this] {
    tab_->showLoading(tr("Loading %1…").arg(tab_->title()));
    loadReport();
  });
  connect(tab_, &views::TraceTab::eventQueryChanged, this, &TraceController::queryEvents);
  connect(tab_->events(), &views::EventsView::pageWanted, this, &TraceController::readEventPage);
  connect(tab_->timeline(), &views::TimelineChart::frameRequested, this, &TraceController::requestFrame);
  connect(tab_->oomView()->timeline(), &views::TimelineChart::frameRequested, this, [this](const TimelineRequest& request) {
    if (!timeline_) return;
    views::TimelineChart* chart = tab_->oomView()->timeline();
    jobs_.run<TimelineFrame>(
        slot("oom frame"), tr("Drawing the timeline up to the out-of-memory"), chart,
        [timeline = timeline_, request](Progress&) { return timeline->frame(request); },
        [chart](TimelineFrame frame) { chart->setFrame(std::move(frame)); },
        [chart](const QString& error) { chart->setFrameFailed(error); });
  });
}

QString TraceController::slot(const char* what) const {
  return QStringLiteral("%1 %2").arg(reinterpret_cast<quintptr>(tab_), 0, 16).arg(QLatin1String(what));
}

void TraceController::load() {
  const QFileInfo info(source_);
  if (info.suffix().compare(QStringLiteral("sawtooth"), Qt::CaseInsensitive) != 0) {
    if (openConversionOrOffer()) return;
    return loadReport();
  }
  const std::string path = source_.toStdString();
  const uint64_t file_bytes = static_cast<uint64_t>(info.size());
  // Summaries missing or stale: built into the cache (one pass, bounded memory) only for a file too
  // large to read whole; a smaller one is read whole, as before.
  const bool build = estimatedMemoryToReadWhole(file_bytes) > wholeFileBudgetFromSettings();
  struct Opened {
    std::shared_ptr<SummaryTimeline> timeline;
    TimelineOverview overview;
  };
  jobs_.run<Opened>(
      slot("load"), tr("Opening %1").arg(tab_->title()), tab_,
      [path, build, limits = readingLimitsFromSettings()](Progress& p) -> Result<Opened> {
        auto timeline = SummaryTimeline::open(path, limits, build, p);
        if (!timeline) return timeline.error();
        if (!*timeline) return Opened{};
        auto overview = (*timeline)->refresh();
        if (!overview) return overview.error();
        return Opened{std::move(*timeline), std::move(*overview)};
      },
      [this, file_bytes](Opened opened) {
        if (!opened.timeline) return loadReport();
        showTimeline(std::move(opened.timeline), std::move(opened.overview), file_bytes);
      },
      [this, build](const QString& error) {
        // Summaries that cannot be read: the file read whole, as before, unless it is too large.
        qCWarning(lcWindow) << "summaries of" << tab_->path() << "not read:" << error;
        if (build) tab_->showError(withAppRaiseHint(error));
        else loadReport();
      },
      [this](int permille) { tab_->setLoadProgress(permille); });
}

bool TraceController::openConversionOrOffer() {
  const std::string path = tab_->path().toStdString();
  const uint64_t needs = estimatedMemoryToReadSnapshot(path), budget = wholeFileBudgetFromSettings();
  if (needs <= budget) return false;
  const QString dir = conversionCacheDir();
  if (auto converted = findCachedConversion(dir.toStdString(), path)) {
    qCInfo(lcWindow) << tab_->path() << "opens from its conversion" << QString::fromStdString(*converted);
    source_ = QString::fromStdString(*converted);
    load();
    return true;
  }
  tab_->offerConversion(
      tr("Reading this snapshot whole would take about %1 of memory, past the %2 the app gives one file (Settings ▸ "
         "Reading limits; limits/whole_file_budget). Converted once into a .sawtooth file in your cache (%3), it opens "
         "from its summaries in bounded memory — and at once the next time. The snapshot itself is not changed.")
          .arg(views::bytesText(static_cast<qint64>(needs)), views::bytesText(static_cast<qint64>(budget)), dir));
  return true;
}

void TraceController::convert() {
  const std::string path = tab_->path().toStdString(), dir = conversionCacheDir().toStdString();
  tab_->showLoading(tr("Converting %1 into a .sawtooth file in your cache…").arg(tab_->title()));
  jobs_.run<std::string>(
      slot("load"), tr("Converting %1").arg(tab_->title()), tab_,
      [path, dir, limits = readingLimitsFromSettings()](Progress& p) {
        return convertSnapshotIntoCache(path, dir, p, limits);
      },
      [this](std::string converted) {
        qCInfo(lcWindow) << tab_->path() << "converted into" << QString::fromStdString(converted);
        source_ = QString::fromStdString(converted);
        tab_->showLoading(tr("Opening %1…").arg(tab_->title()));
        load();
      },
      [this](const QString& error) { tab_->showError(withAppRaiseHint(error)); },
      [this](int permille) { tab_->setLoadProgress(permille); });
}

void TraceController::adopt(const LiveHandover& handover) {
  const uint64_t file_bytes = static_cast<uint64_t>(QFileInfo(tab_->path()).size());
  timeline_ = handover.timeline;
  jobs_.run<TimelineOverview>(
      slot("load"), tr("Opening %1").arg(tab_->title()), tab_, [t = timeline_](Progress&) { return t->refresh(); },
      [this, file_bytes, window = handover.window](TimelineOverview overview) {
        tab_->setXAxisByTime(true);  // the live chart's axis
        showTimeline(timeline_, std::move(overview), file_bytes);
        if (window.isZoomed()) tab_->timeline()->zoomTo(window.lo(), window.hi());
      },
      [this](const QString& error) {
        qCWarning(lcWindow) << "the live summaries of" << tab_->path() << "could not be taken over:" << error;
        timeline_.reset();
        load();
      });
}

void TraceController::showTimeline(std::shared_ptr<SummaryTimeline> timeline, TimelineOverview overview, uint64_t file_bytes) {
  timeline_ = std::move(timeline);
  moment_events_ = 0;
  int64_t largest = -1;
  for (const TimelineOverview::Device& d : overview.devices)
    if (d.points > 0 && d.peak > largest) {
      largest = d.peak;
      moment_device_ = d.device;
      moment_events_ = d.points;
    }
  tab_->showOverview(std::make_shared<const TimelineOverview>(std::move(overview)));
  const uint64_t needs = estimatedMemoryToReadWhole(file_bytes), budget = wholeFileBudgetFromSettings();
  if (needs <= budget) return loadReport();
  qCInfo(lcWindow) << tab_->path() << "opens from its summaries alone: about" << needs << "bytes to read whole, budget"
                   << budget;
  tab_->showSummariesOnly(
      tr("Read from the file on demand: reading every event would take about %1 of memory for this file, past the %2 "
         "the app gives one file (Settings ▸ Reading limits; limits/whole_file_budget). The timeline reads the window "
         "shown from the file's summaries; the allocator, live bytes and modules views replay the moment shown from "
         "the nearest allocator state the file stores (each module's forward and backward costs over the moment's "
         "step); the events table reads the file a page at a time (sorted by any column: the first 100,000 rows in "
         "that order). The peak comparison, precision and runs views show the runs' own measurements; the "
         "out-of-memory post-mortem comes from the summaries' index of out-of-memory events, and the plan against the "
         "count from one pass over the events, in the background (a file written before the index: both from the "
         "pass). Compared with another trace, the two timelines are overlaid from the summaries of both and "
         "it is diffed by the call sites alive at each peak.")
          .arg(views::bytesText(static_cast<qint64>(needs)), views::bytesText(static_cast<qint64>(budget))));
  openEventPages();
}

std::optional<TraceController::OnDemand> TraceController::onDemand() const {
  if (tab_->state() != views::TraceTab::State::Summaries || !timeline_ || moment_events_ == 0) return std::nullopt;
  return OnDemand{timeline_, source_.toStdString(), moment_device_, pages_ ? pages_->tables() : nullptr};
}

void TraceController::openEventPages() {
  struct Paged {
    std::shared_ptr<const EventPages> pages;
    std::shared_ptr<const TraceReport> runs;  // the runs' figures: a pass over every step and phase row
  };
  jobs_.run<Paged>(
      slot("pages"), tr("Opening the events table of %1").arg(tab_->title()), tab_,
      [path = source_.toStdString(), limits = readingLimitsFromSettings()](Progress&) -> Result<Paged> {
        auto pages = EventPages::open(path, limits);
        if (!pages) return pages.error();
        auto runs = std::make_shared<const TraceReport>(runFiguresReport(*(*pages)->tables()));
        return Paged{std::move(*pages), std::move(runs)};
      },
      [this](Paged paged) {
        pages_ = std::move(paged.pages);
        tab_->showPagedEvents();
        queryEvents(tab_->events()->query());
        const bool moments = moment_events_ > 0 && timeline_;
        const std::shared_ptr<const TraceReport>& runs = paged.runs;
        tab_->showOnDemandViews(moments, runs);
        if (moments) moments_->start(timeline_, pages_->tables(), moment_device_, moment_events_);
        countWholeTrace(*runs);
      },
      [this](const QString& error) {
        qCWarning(lcWindow) << "the events table of" << tab_->path() << "cannot be paged:" << error;
      });
}

void TraceController::countWholeTrace(TraceReport runs) {
  // The first out-of-memory from the summaries' index, at once; the pass below adds the plan (and
  // finds the out-of-memory itself in a file whose summaries keep no index).
  jobs_.run<std::shared_ptr<const TraceReport>>(
      slot("indexed oom"), tr("Reading the out-of-memory of %1").arg(tab_->title()), tab_,
      [timeline = timeline_, tables = pages_->tables(), report = runs](Progress& progress) mutable
      -> Result<std::shared_ptr<const TraceReport>> {
        auto indexed = timeline->addIndexedOom(*tables, report, progress);
        if (!indexed) return indexed.error();
        if (!report.oom) return std::shared_ptr<const TraceReport>();
        return std::make_shared<const TraceReport>(std::move(report));
      },
      [this](std::shared_ptr<const TraceReport> report) {
        if (!report || tab_->onDemandReport()) return;  // none, or the pass came first
        tab_->showOnDemandFigures(report);
        if (report->oom->device == moment_device_) moments_->requestPosition(report->oom->index);
      },
      [this](const QString& error) {
        qCWarning(lcWindow) << "the out-of-memory index of" << tab_->path() << "was not read:" << error;
      });
  const QString what = tr("Counting each category's peak and looking for an out-of-memory in every event");
  tab_->setFiguresPass(what + QStringLiteral("…"));
  jobs_.run<std::shared_ptr<const TraceReport>>(
      slot("whole pass"), tr("%1 of %2").arg(what, tab_->title()), tab_,
      [timeline = timeline_, tables = pages_->tables(), report = std::move(runs)](Progress& progress) mutable
      -> Result<std::shared_ptr<const TraceReport>> {
        if (Status st = timeline->addWholeTraceFigures(*tables, report, progress); !st) return st.error();
        return std::make_shared<const TraceReport>(std::move(report));
      },
      [this](std::shared_ptr<const TraceReport> report) {
        const bool oom_shown = tab_->onDemandReport() && tab_->onDemandReport()->oom;
        tab_->showOnDemandFigures(report);
        // As a trace read whole, the allocator opens at the first out-of-memory, else the peak.
        if (!oom_shown && report->oom && report->oom->device == moment_device_)
          moments_->requestPosition(report->oom->index);
      },
      [this](const QString& error) {
        qCWarning(lcWindow) << "the plan and out-of-memory figures of" << tab_->path() << "were not counted:" << error;
        tab_->setFiguresPass(tr("The plan against the count and the out-of-memory post-mortem need one pass over the "
                                "events, which failed: %1").arg(error));
      },
      [this, what](int permille) { tab_->setFiguresPass(tr("%1… %2 %").arg(what).arg(permille / 10)); });
}

void TraceController::readEventPage(const EventQuery& query, quint64 first_row) {
  const auto rows = tab_->events()->model()->pagedRows();
  if (!pages_ || !rows || rows->query.filter != query.filter || rows->query.sort != query.sort ||
      rows->query.descending != query.descending)
    return;
  jobs_.run<EventPage>(
      slot("page") + QString::number(first_row), tr("Reading events of %1").arg(tab_->title()), tab_,
      [pages = pages_, rows = *rows, first_row](Progress&) {
        return pages->page(rows, first_row, views::EventsTableModel::kPageRows);
      },
      [this, query](EventPage page) { tab_->events()->setPage(page, query); },
      [this](const QString& error) { tab_->events()->setQueryFailed(error); });
}

void TraceController::requestFrame(const TimelineRequest& request) {
  if (!timeline_) return;
  jobs_.run<TimelineFrame>(
      slot("frame"), tr("Drawing the timeline of %1").arg(tab_->title()), tab_,
      [timeline = timeline_, request](Progress&) { return timeline->frame(request); },
      [this](TimelineFrame frame) { tab_->timeline()->setFrame(std::move(frame)); },
      [this](const QString& error) { tab_->timeline()->setFrameFailed(error); });
}

void TraceController::loadReport() {
  const std::string path = source_.toStdString();
  jobs_.run<std::shared_ptr<const TraceReport>>(
      slot("report"), tr("Loading %1").arg(tab_->title()), tab_,
      [path, limits = readingLimitsFromSettings()](Progress& p) { return loadTraceReport(path, p, limits); },
      [this](std::shared_ptr<const TraceReport> report) {
        moments_->stop();
        tab_->showReport(std::move(report));
        if (tab_->report()->ranks) loadRankLanes();
        allocator_->setAnalysis(tab_->analysis());
      },
      [this](const QString& error) { tab_->showError(withAppRaiseHint(error)); },
      [this](int permille) { tab_->setLoadProgress(permille); });
}

void TraceController::cancelLoading() {
  const bool opening = jobs_.cancel(slot("load"));
  if (jobs_.cancel(slot("report")) || opening) tab_->showCancelled();
}

void TraceController::queryEvents(const EventQuery& query) {
  auto analysis = tab_->analysis();
  if (!analysis && pages_) {
    jobs_.run<EventPageRows>(
        slot("events"), tr("Filtering the events of %1").arg(tab_->title()), tab_,
        [pages = pages_, query](Progress& p) { return pages->select(query, &p); },
        [this, tables = pages_->tables()](EventPageRows rows) { tab_->events()->setPagedRows(tables, rows); },
        [this](const QString& error) { tab_->events()->setQueryFailed(error); });
    return;
  }
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
  const std::string out = path.toStdString();
  if (!analysis) {  // a file read on demand: the table of the view shown (live bytes, modules)
    const auto table = tab_->currentTable();
    if (what != QLatin1String("table") || !table.table) return false;
    runExport(path, [t = table.table, out](Progress&) { return exportTableCsv(t, out); });
    return true;
  }
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
