// The app opens a .sawtooth file's timeline from its summaries (issue 25): first paint without
// reading the events table, the other views loading behind it (or not, for a file past the
// whole-file budget), zoom at event level reading only the window's events.

#include <algorithm>

#include <QFile>
#include <QFileInfo>
#include <QLineSeries>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include "app/sawtooth/main_window.h"
#include "app/sawtooth/reading_limits.h"
#include "core/analysis/allocator_history.h"
#include "core/analysis/live_bytes.h"
#include "core/analysis/segment_map.h"
#include "core/analysis/trace_report.h"
#include "core/io/native_format.h"
#include "core/io/trace_loader.h"
#include "core/io/sqlite_db.h"
#include "views/oom_view.h"
#include "views/precision_view.h"

using namespace sawtooth;
using namespace sawtooth::app;

namespace {

// 100,000 allocator events: a sawtooth of 50 steps whose peak is in step 37, large enough that the
// whole timeline is drawn from the pyramids' nodes alone (a column holds more than 42 points).
constexpr int kSteps = 50, kPerStep = 1000;
constexpr int64_t kBlock = 1 << 20;
constexpr int kPeakStep = 37;

Trace sawtoothTrace() {
  Trace t;
  t.deviceInfo(0);
  int64_t now = 0;
  for (int step = 0; step < kSteps; ++step) {
    const int64_t size = step == kPeakStep ? 2 * kBlock : kBlock;
    for (int k = 0; k < kPerStep; ++k) {
      Event e;
      e.t_ns = now += 1000;
      e.action = Action::Alloc;
      e.size = size;
      e.addr = 0x100000000ull + static_cast<uint64_t>(k) * 0x400000;
      t.events.push(e);
    }
    for (int k = 0; k < kPerStep; ++k) {
      Event e;
      e.t_ns = now += 1000;
      e.action = Action::FreeCompleted;
      e.size = size;
      e.addr = 0x100000000ull + static_cast<uint64_t>(k) * 0x400000;
      t.events.push(e);
    }
  }
  return t;
}

// Overwrites a leaf page in the middle of the events table with garbage: reading every event fails
// ("database disk image is malformed"), what the summaries hold is intact.
bool damageEventsTable(const QString& path) {
  int64_t page = 0, page_size = 0;
  {
    auto db = sql::Database::open(path.toStdString(), sql::Database::Mode::ReadOnly);
    if (!db) return false;
    auto leaves = db->prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY path");
    if (!leaves) return false;
    std::vector<int64_t> pages;
    while (leaves->step()) pages.push_back(leaves->int64(0));
    if (pages.size() < 20) return false;
    page = pages[pages.size() / 2];
    auto size = db->prepare("PRAGMA page_size");
    if (!size || !size->step()) return false;
    page_size = size->int64(0);
  }
  if (QFile::exists(path + QStringLiteral("-wal"))) return false;
  QFile f(path);
  if (!f.open(QIODevice::ReadWrite) || !f.seek((page - 1) * page_size)) return false;
  return f.write(QByteArray(static_cast<int>(page_size), '\xa5')) == page_size;
}

double maxY(const QList<QPointF>& points) {
  double m = -INFINITY;
  for (const QPointF& p : points) m = std::max(m, p.y());
  return m;
}

}  // namespace

class SummaryOpenTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString clean_, damaged_;

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("sawtooth-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("summary-open-test"));
    QSettings().clear();
    qputenv("SAWTOOTH_CACHE_DIR", dir_.filePath(QStringLiteral("cache")).toUtf8());
    const Trace trace = sawtoothTrace();
    clean_ = dir_.filePath(QStringLiteral("clean.sawtooth"));
    damaged_ = dir_.filePath(QStringLiteral("damaged.sawtooth"));
    QVERIFY(writeNative(trace, clean_.toStdString()));
    QVERIFY(writeNative(trace, damaged_.toStdString()));
    QVERIFY(damageEventsTable(damaged_));
  }
  void init() { QSettings().clear(); }

  void aDamagedEventsTableStillPaintsFromTheSummaries() {
    // Whole-file reading fails on this file; the timeline does not need it.
    saveWholeFileBudget(uint64_t{1} << 40);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(damaged_);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 20000);
    views::TimelineChart* chart = tab->timeline();
    QVERIFY(tab->overview());
    QVERIFY(!tab->report());
    QVERIFY2(tab->otherViewsText().contains(QStringLiteral("could not be read")), qPrintable(tab->otherViewsText()));
    QTRY_VERIFY_WITH_TIMEOUT(chart->frame() && !chart->frameComputing(), 20000);
    const QList<QPointF> allocated = chart->linePoints(0, SeriesKind::Allocated);
    QVERIFY(chart->line(0, SeriesKind::Allocated) && allocated.count() > 0);
    // The whole run, drawn from the pyramids' nodes: the peak of step 37 exactly.
    QCOMPARE(maxY(allocated) * chart->yUnit().bytes, double(kPerStep * 2 * kBlock));
    QCOMPARE(chart->peakLabel(0), QStringLiteral("peak 2.10 GB"));
    QCOMPARE(tab->overview()->events, uint64_t(kSteps * kPerStep * 2));
    // At event level, the window's events are read (from the start: pages the damage missed).
    chart->zoomTo(0, 300);
    QTRY_VERIFY_WITH_TIMEOUT(!chart->frameComputing() && chart->frame()->request.x1 == 300.0, 20000);
    // Point 300 is in the last column: 301 blocks of 1 MiB live.
    QCOMPARE(maxY(chart->linePoints(0, SeriesKind::Allocated)) * chart->yUnit().bytes, double(301 * kBlock));
    // The chart can be exported; the CSVs of every event cannot.
    const QString png = dir_.filePath(QStringLiteral("damaged.png"));
    QSignalSpy exported(&w, &MainWindow::exportFinished);
    QVERIFY(w.exportChart(png));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 20000);
    QCOMPARE(exported.at(0).at(1).toString(), QString());
    QVERIFY(!w.exportCsv(QStringLiteral("events"), dir_.filePath(QStringLiteral("damaged.csv"))));
  }

  void aBigFilesPassThatCannotReadItsEventsSaysSo() {
    // Past the budget, the pass for the plan and the out-of-memory (a file whose summaries keep no
    // category peaks: written before they did) meets the damaged page: said under the notice; the
    // timeline stays.
    const QString older = dir_.filePath(QStringLiteral("damaged-older.sawtooth"));
    QFile::remove(older);
    QVERIFY(QFile::copy(damaged_, older));
    {
      auto db = sql::Database::open(older.toStdString(), sql::Database::Mode::Create);
      QVERIFY(db.ok());
      QVERIFY(db->exec("DROP TABLE summary_category_peaks").ok());
    }
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(older);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(tab->figuresPassText().contains(QStringLiteral("which failed")), 30000);
    QVERIFY2(tab->figuresPassText().contains(QStringLiteral("malformed")), qPrintable(tab->figuresPassText()));
    QVERIFY(!tab->hasView(views::TraceTab::View::OutOfMemory));
    QCOMPARE(tab->state(), views::TraceTab::State::Summaries);
  }

  void aFilePastTheBudgetOpensFromItsSummariesAlone() {
    saveWholeFileBudget(1024);  // every file is "too large"
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(clean_);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 20000);
    QVERIFY2(tab->otherViewsText().contains(QStringLiteral("nearest allocator state")) &&
                 tab->otherViewsText().contains(QStringLiteral("a page at a time")),
             qPrintable(tab->otherViewsText()));
    QTRY_VERIFY_WITH_TIMEOUT(tab->timeline()->frame() && !tab->timeline()->frameComputing(), 20000);
    QVERIFY(tab->timeline()->linePoints(0, SeriesKind::Allocated).count() > 0);
    // The events table reads the file a page at a time: every event listed, the rows in view read.
    views::EventsView* events = tab->events();
    QTRY_VERIFY_WITH_TIMEOUT(events->model()->paged(), 20000);
    QVERIFY(events->isVisibleTo(tab));
    const int total = kSteps * kPerStep * 2;
    QCOMPARE(events->model()->rowCount(), total);
    QCOMPARE(events->countText(), QStringLiteral("%L1 events").arg(total));
    auto* model = events->model();
    model->data(model->index(1500, views::EventsTableModel::Size), Qt::DisplayRole);  // asks for its page
    QTRY_COMPARE_WITH_TIMEOUT(model->eventAt(1500), qint64(1500), 20000);
    QCOMPARE(model->data(model->index(1500, views::EventsTableModel::Action), Qt::DisplayRole).toString(),
             QStringLiteral("free_completed"));  // step 0: 1000 allocations, then their frees
    // A filter runs over the file: step 37's blocks of 2 MiB, allocated and freed.
    events->filterEdit()->setText(QStringLiteral("size>=2MB"));
    QTRY_COMPARE_WITH_TIMEOUT(events->countText(), QStringLiteral("%L1 of %L2 events").arg(2 * kPerStep).arg(total), 20000);
    model->data(model->index(kPerStep + 3, views::EventsTableModel::Index), Qt::DisplayRole);
    QTRY_COMPARE_WITH_TIMEOUT(model->eventAt(kPerStep + 3), qint64(kPeakStep * 2 * kPerStep + kPerStep + 3), 20000);
    // Descending by #: the last matching event first.
    events->table()->sortByColumn(views::EventsTableModel::Index, Qt::DescendingOrder);
    QTRY_VERIFY_WITH_TIMEOUT(model->pagedRows() && model->pagedRows()->query.descending, 20000);
    model->data(model->index(0, views::EventsTableModel::Index), Qt::DisplayRole);
    QTRY_COMPARE_WITH_TIMEOUT(model->eventAt(0), qint64((kPeakStep + 1) * 2 * kPerStep - 1), 20000);
    // By size, largest first, in the same one pass: without the filter, step 37's allocations and
    // frees of 2 MiB come first, ties in event order.
    events->filterEdit()->setText(QString());
    QTRY_VERIFY_WITH_TIMEOUT(model->pagedRows() && model->pagedRows()->query.filter.empty(), 20000);
    events->table()->sortByColumn(views::EventsTableModel::Size, Qt::DescendingOrder);
    QTRY_VERIFY_WITH_TIMEOUT(model->pagedRows() && model->pagedRows()->query.sort == EventColumn::Size, 20000);
    QCOMPARE(model->rowCount(), total);
    model->data(model->index(0, views::EventsTableModel::Index), Qt::DisplayRole);
    QTRY_COMPARE_WITH_TIMEOUT(model->eventAt(0), qint64(kPeakStep * 2 * kPerStep), 20000);
    model->data(model->index(2 * kPerStep, views::EventsTableModel::Index), Qt::DisplayRole);
    QTRY_COMPARE_WITH_TIMEOUT(model->eventAt(2 * kPerStep), qint64(0), 20000);  // then the 1 MiB ones, from the first
    // By phase too (the phases' names read once): this file has none, so the events' own order.
    events->table()->sortByColumn(views::EventsTableModel::Phase, Qt::AscendingOrder);
    QTRY_VERIFY_WITH_TIMEOUT(model->pagedRows() && model->pagedRows()->query.sort == EventColumn::Phase, 20000);
    QCOMPARE(model->rowCount(), total);
    model->data(model->index(1, views::EventsTableModel::Index), Qt::DisplayRole);
    QTRY_COMPARE_WITH_TIMEOUT(model->eventAt(1), qint64(1), 20000);
    // Nothing reads the whole file behind it.
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 20000);
    QTest::qWait(200);
    QCOMPARE(tab->state(), views::TraceTab::State::Summaries);
    QVERIFY(!tab->report());
  }

  void theAllocatorLiveBytesAndModulesViewsReplayFromTheFile() {
    saveWholeFileBudget(1024);  // past the budget: nothing is read whole
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(clean_);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(tab->hasView(views::TraceTab::View::LiveBytes), 20000);
    QVERIFY(tab->hasView(views::TraceTab::View::Allocator));
    QVERIFY(tab->hasView(views::TraceTab::View::Modules));
    // At the peak (the end of step 37's allocations): its 1,000 blocks of 2 MiB, replayed from the
    // nearest stored allocator state.
    const qint64 peak = kPeakStep * 2 * kPerStep + kPerStep - 1;
    views::LiveBytesView* live = tab->liveBytesView();
    QTRY_VERIFY_WITH_TIMEOUT(live->liveBytes() != nullptr, 20000);
    QVERIFY(live->liveBytes()->at_peak);
    QCOMPARE(live->liveBytes()->position, peak);
    QCOMPARE(live->liveBytes()->total, kPerStep * 2 * kBlock);
    QCOMPARE(live->liveBytes()->allocations, size_t(kPerStep));
    // Its blocks lie in no segment (no segment events): no segment map, said, as a trace read whole
    // would have no allocator view.
    views::AllocatorStateView* state = tab->allocatorView();
    QTRY_VERIFY_WITH_TIMEOUT(state->headline()->text().startsWith(QStringLiteral("No segment map: ")), 20000);
    QVERIFY2(state->headline()->text().contains(QStringLiteral("no allocator segments")), qPrintable(state->headline()->text()));
    // This recording has no modules: said, as for a trace in memory.
    QTRY_VERIFY_WITH_TIMEOUT(tab->modulesView()->headline()->text().startsWith(QStringLiteral("No modules to show")), 20000);

    // The live bytes' table and picture export from the file as from memory.
    tab->showView(views::TraceTab::View::LiveBytes);
    const QString csv = dir_.filePath(QStringLiteral("live.csv")), png = dir_.filePath(QStringLiteral("live.png"));
    QSignalSpy exported(&w, &MainWindow::exportFinished);
    QVERIFY(w.exportCsv(QStringLiteral("table"), csv));
    QVERIFY(w.exportChart(png));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 2, 20000);
    QCOMPARE(exported.at(0).at(1).toString(), QString());
    QCOMPARE(exported.at(1).at(1).toString(), QString());
    QFile table(csv);
    QVERIFY(table.open(QIODevice::ReadOnly));
    QVERIFY(table.readAll().count('\n') >= 2);
    QVERIFY(QFileInfo(png).size() > 0);
    QVERIFY(!tab->report());
  }

  void aBigFilesModulesShowTheirCostsOverTheMomentsStep() {
    // Three training steps of Net(0, 1), the top-level call a moment before each forward phase.
    Trace t;
    t.format = "sawtooth";
    t.deviceInfo(0).name = "cuda:0";
    t.modules.modules = {Module{"Net", "Net", kNoModule, 0}, Module{"0", "Linear", 0, 4096}, Module{"1", "Linear", 0, 4096}};
    int64_t now = 1000;
    uint64_t addr = 0x100000;
    for (int step = 0; step < 3; ++step) {
      const int64_t root = now += 100;
      t.phases.push_back(Phase{"forward", PhaseKind::Phase, kAllDevices, kNoRun, now += 5, 0});
      std::vector<uint64_t> held;
      for (uint32_t m : {1u, 2u}) {
        const int64_t begin = now += 10;
        Event e;
        e.t_ns = now += 10;
        e.addr = addr;
        e.size = kBlock * m;
        e.category = Category::Activation;
        e.module = m;
        e.pass = Pass::Forward;
        t.events.push(e);
        held.push_back(addr);
        addr += 4 * kBlock;
        t.modules.calls.push_back(ModuleCall{m, Pass::Forward, kNoRun, begin, now += 10});
      }
      t.modules.calls.push_back(ModuleCall{0, Pass::Forward, kNoRun, root, now += 10});
      t.phases.back().end_ns = now;
      for (size_t k = 0; k < held.size(); ++k) {
        Event e;
        e.t_ns = now += 10;
        e.action = Action::FreeCompleted;
        e.addr = held[k];
        e.size = kBlock * static_cast<int64_t>(k + 1);
        t.events.push(e);
      }
    }
    const QString path = dir_.filePath(QStringLiteral("stepped-modules.sawtooth"));
    QVERIFY(writeNative(t, path.toStdString()));
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(tab->hasView(views::TraceTab::View::Modules), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(tab->modulesView()->headline()->text().contains(QStringLiteral("costs over step 0")), 20000);
  }

  void aFilePastTheBudgetIsComparedByItsCallSitesAtThePeak() {
    // Two files past the budget (the same recording twice), then one of them against a trace
    // read whole: the call sites alive at each peak, each replayed from its file's summaries.
    const QString copy = dir_.filePath(QStringLiteral("copy.sawtooth"));
    QFile::remove(copy);
    QVERIFY(QFile::copy(clean_, copy));
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* a = w.openFile(clean_);
    auto* b = w.openFile(copy);
    QTRY_VERIFY_WITH_TIMEOUT(a->state() == views::TraceTab::State::Summaries &&
                                 b->state() == views::TraceTab::State::Summaries,
                             30000);
    views::CompareView* view = w.compare(a, b);
    QVERIFY(view);
    views::ComparisonTab* tab = w.currentComparison();
    QVERIFY(tab && tab->currentCompare());  // the timelines, overlaid from the summaries
    views::DiffSitesView* sites = tab->sitesView();
    QTRY_VERIFY_WITH_TIMEOUT(sites->tableData() != nullptr, 30000);
    QVERIFY2(sites->summary()->text().contains(QStringLiteral("2.10 GB")), qPrintable(sites->summary()->text()));
    QVERIFY2(sites->summary()->text().contains(QStringLiteral("same bytes at both peaks")),
             qPrintable(sites->summary()->text()));
    // What each site allocated over each file follows, counted in a second pass over its events.
    auto counted = [sites] {
      const auto table = sites->tableData();
      if (!table) return false;
      for (const TableColumn& c : table->columns)
        if (c.name.find("allocated in all") != std::string::npos) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(counted(), 30000);
    QVERIFY2(!sites->summary()->text().contains(QStringLiteral("Counting")), qPrintable(sites->summary()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 30000);

    // Against a trace read whole (the anatomy sample fits any budget above its size).
    saveWholeFileBudget(uint64_t{1} << 40);
    auto* whole = w.openFile(QStringLiteral(SAWTOOTH_SAMPLES "/anatomy.sawtooth"));
    QTRY_VERIFY_WITH_TIMEOUT(whole->state() == views::TraceTab::State::Ready, 30000);
    QVERIFY(w.compare(whole, a));
    views::DiffSitesView* mixed = w.currentComparison()->sitesView();
    QTRY_VERIFY_WITH_TIMEOUT(mixed->tableData() != nullptr, 30000);
    QVERIFY2(mixed->summary()->text().contains(QStringLiteral("2.10 GB")), qPrintable(mixed->summary()->text()));
  }

  void aFilePastTheBudgetIsOverlaidFromItsSummaries() {
    // The same recording twice, past the budget: both timelines on one chart, drawn from the
    // summaries a window at a time, with the peaks' differences; then aligned in time.
    const QString copy = dir_.filePath(QStringLiteral("copy-overlay.sawtooth"));
    QFile::remove(copy);
    QVERIFY(QFile::copy(clean_, copy));
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* a = w.openFile(clean_);
    auto* b = w.openFile(copy);
    QTRY_VERIFY_WITH_TIMEOUT(a->state() == views::TraceTab::State::Summaries &&
                                 b->state() == views::TraceTab::State::Summaries,
                             30000);
    views::CompareView* view = w.compare(a, b);
    QVERIFY(view);
    QTRY_VERIFY_WITH_TIMEOUT(view->timeline()->overview() != nullptr, 30000);
    const auto overview = view->timeline()->overview();
    QStringList names;
    for (const auto& d : overview->devices) names << QString::fromStdString(d.name);
    QVERIFY2(names.contains(QStringLiteral("A cuda:0")) && names.contains(QStringLiteral("B cuda:0")),
             qPrintable(names.join(", ")));
    QVERIFY2(view->noteText().contains(QStringLiteral("aligned by allocation event")), qPrintable(view->noteText()));
    QTRY_VERIFY_WITH_TIMEOUT(view->timeline()->frame() != nullptr, 30000);
    size_t drawn = 0;
    for (const auto& line : view->timeline()->frame()->lines) drawn += line.points.size();
    QVERIFY(drawn > 0);
    QVERIFY(view->timeline()->line(0, SeriesKind::Allocated));
    QVERIFY(view->timeline()->line(kCompareOffset, SeriesKind::Allocated));
    // The differences: the same file on both sides, every peak equal.
    const views::TableModel* model = view->differencesModel();
    QVERIFY(model->rowCount() >= 2);
    QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("cuda:0 peak allocated"));
    QCOMPARE(model->index(0, 1).data(Qt::UserRole), model->index(0, 2).data(Qt::UserRole));
    QVERIFY2(model->index(0, 1).data().toString().contains(QStringLiteral("2.10 GB")),
             qPrintable(model->index(0, 1).data().toString()));
    // Zoomed, a new frame for the window.
    const double lo = view->timeline()->window().lo(), hi = view->timeline()->window().hi();
    view->timeline()->zoomTo(lo + (hi - lo) * 0.4, lo + (hi - lo) * 0.41);
    QTRY_VERIFY_WITH_TIMEOUT(view->timeline()->frame() && view->timeline()->frame()->request.x0 > lo, 30000);
    // In time: the overlay is made again.
    view->setAlignment(Alignment::Time);
    QTRY_VERIFY_WITH_TIMEOUT(view->noteText().contains(QStringLiteral("aligned in time")), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(view->timeline()->xAxisByTime() && view->timeline()->frame() &&
                                 view->timeline()->frame()->request.by_time,
                             30000);
    // A file exported as the chart draws it.
    const QString png = dir_.filePath(QStringLiteral("overlay.png"));
    QSignalSpy exported(&w, &MainWindow::exportFinished);
    QVERIFY(w.exportChart(png));
    QTRY_VERIFY_WITH_TIMEOUT(!exported.isEmpty(), 30000);
    QCOMPARE(exported.first().at(1).toString(), QString());
    QVERIFY(QFileInfo(png).size() > 0);

    // Against a trace read whole.
    saveWholeFileBudget(uint64_t{1} << 40);
    auto* whole = w.openFile(QStringLiteral(SAWTOOTH_SAMPLES "/anatomy.sawtooth"));
    QTRY_VERIFY_WITH_TIMEOUT(whole->state() == views::TraceTab::State::Ready, 30000);
    views::CompareView* mixed = w.compare(whole, a);
    QVERIFY(mixed);
    QTRY_VERIFY_WITH_TIMEOUT(mixed->timeline()->frame() != nullptr, 30000);
    QVERIFY2(mixed->noteText().contains(QStringLiteral("A: ")), qPrintable(mixed->noteText()));
    QVERIFY(mixed->differencesModel()->rowCount() >= 2);
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 30000);
  }

  void theOtherViewsFollowWithTheZoomKept() {
    saveWholeFileBudget(uint64_t{1} << 40);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(clean_);
    // The timeline comes first, from the summaries; the user zooms while the rest loads.
    QTRY_VERIFY_WITH_TIMEOUT(tab->overview() != nullptr, 20000);
    const bool first = tab->state() == views::TraceTab::State::Loading;
    tab->timeline()->zoomTo(1000, 3000);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Ready, 30000);
    QVERIFY(tab->analysis());
    QVERIFY(first);
    QVERIFY(!tab->timeline()->overview());  // the trace in memory draws it now
    QCOMPARE(tab->timeline()->window().lo(), 1000.0);
    QCOMPARE(tab->timeline()->window().hi(), 3000.0);
    QVERIFY(tab->otherViewsText().isEmpty());
  }

  void aFileWithoutSummariesIsReadWholeAsBefore() {
    // Format 1 (the samples): no summaries, small: read whole, no cache built.
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(QStringLiteral(SAWTOOTH_SAMPLES "/anatomy.sawtooth"));
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Ready, 30000);
    QVERIFY(!tab->overview());
    QVERIFY(!QDir(dir_.filePath(QStringLiteral("cache/summaries"))).exists());
  }

  void aRecordingWithRunsPastTheBudgetShowsItsRunsAndMoments() {
    // Past the budget, a format-1 recording is summarised into the cache: its runs' table comes
    // from its runs alone, the moments from the cache's allocator states.
    saveWholeFileBudget(1024);
    const QString path = QStringLiteral(SAWTOOTH_SAMPLES "/anatomy.sawtooth");
    auto whole = loadTrace(path.toStdString());
    QVERIFY(whole.ok());
    QVERIFY(!whole->runs.empty());
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(tab->hasView(views::TraceTab::View::Runs), 20000);
    QCOMPARE(tab->runsView()->runsModel()->rowCount(), int(whole->runs.size()));
    tab->showView(views::TraceTab::View::Runs);
    const QString csv = dir_.filePath(QStringLiteral("runs.csv"));
    QSignalSpy exported(&w, &MainWindow::exportFinished);
    QVERIFY(w.exportCsv(QStringLiteral("table"), csv));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 20000);
    QCOMPARE(exported.at(0).at(1).toString(), QString());
    // The live bytes and the segment map at the peak: what the trace read whole gives there.
    QVERIFY(tab->hasView(views::TraceTab::View::LiveBytes));
    QTRY_VERIFY_WITH_TIMEOUT(tab->liveBytesView()->liveBytes() != nullptr, 20000);
    const auto live = tab->liveBytesView()->liveBytes();
    QCOMPARE(live->total, liveBytesAt(*whole, live->device).total);
    auto history = AllocatorHistory::build(*whole, live->device);
    QVERIFY(history.ok());
    views::AllocatorStateView* state = tab->allocatorView();
    const QString at_peak = QString::fromStdString(segmentMapAt(*whole, *history, live->position).headline);
    QTRY_COMPARE_WITH_TIMEOUT(state->headline()->text(), at_peak, 20000);
    QCOMPARE(state->position(), live->position);
    // Scrubbing replays the moment asked for.
    const qint64 to = live->position / 2;
    state->eventBox()->setValue(static_cast<int>(to));
    QTRY_VERIFY_WITH_TIMEOUT(tab->liveBytesView()->liveBytes()->position == to, 20000);
    QVERIFY(!tab->liveBytesView()->liveBytes()->at_peak);
    QCOMPARE(tab->liveBytesView()->liveBytes()->total, liveBytesAt(*whole, live->device, to).total);
    QTRY_COMPARE_WITH_TIMEOUT(state->headline()->text(),
                              QString::fromStdString(segmentMapAt(*whole, *history, to).headline), 20000);
    // The plan against the count, from the summaries' category peaks in the background: the whole
    // trace's figures.
    QTRY_VERIFY_WITH_TIMEOUT(tab->hasView(views::TraceTab::View::Plan), 30000);
    const auto report = buildTraceReport(std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(*whole)));
    QVERIFY(tab->onDemandReport());
    QCOMPARE(tab->onDemandReport()->plan_rows.size(), report->plan_rows.size());
    for (size_t i = 0; i < report->plan_rows.size(); ++i)
      QCOMPARE(tab->onDemandReport()->plan_rows[i].measured_bytes, report->plan_rows[i].measured_bytes);
    QVERIFY(!tab->hasView(views::TraceTab::View::OutOfMemory));
    QCOMPARE(tab->figuresPassText(), QString());  // the pass is done
    tab->showView(views::TraceTab::View::Plan);
    const QString plan_png = dir_.filePath(QStringLiteral("plan.png"));
    QVERIFY(w.exportChart(plan_png));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 2, 20000);
    QCOMPARE(exported.at(1).at(1).toString(), QString());
    QVERIFY(QFileInfo(plan_png).size() > 0);
    QVERIFY(!tab->report());
  }

  void theRunsMeasurementsGiveABigFilesPeakComparisonAndPrecision() {
    // Past the budget, the peak comparison and the precision results come from the runs' own
    // measurements at once (no pass over the events), with the figures of the trace read whole.
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    for (const char* name : {"checkpointing", "precision"}) {
      const QString path = QStringLiteral(SAWTOOTH_SAMPLES "/%1.sawtooth").arg(QLatin1String(name));
      auto whole = loadTrace(path.toStdString());
      QVERIFY(whole.ok());
      const auto report = buildTraceReport(std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(*whole)));
      auto* tab = w.openFile(path);
      QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 30000);
      QTRY_VERIFY_WITH_TIMEOUT(tab->onDemandReport() != nullptr, 20000);
      const bool precision = QLatin1String(name) == QLatin1String("precision");
      QCOMPARE(tab->hasView(views::TraceTab::View::Peaks), !precision);
      QCOMPARE(tab->hasView(views::TraceTab::View::Precision), precision);
      QCOMPARE(tab->onDemandReport()->peak_groups.size(), report->peak_groups.size());
      for (size_t i = 0; i < report->peak_groups.size(); ++i)
        QCOMPARE(tab->onDemandReport()->peak_groups[i].peak_allocated, report->peak_groups[i].peak_allocated);
      if (precision) {
        QCOMPARE(tab->precisionView()->tableModel()->rowCount(), int(report->precision_table.rowCount()));
        QVERIFY(report->precision_table.rowCount() > 0);
      }
      tab->showView(precision ? views::TraceTab::View::Precision : views::TraceTab::View::Peaks);
      const QString png = dir_.filePath(QStringLiteral("%1-bars.png").arg(QLatin1String(name)));
      QSignalSpy exported(&w, &MainWindow::exportFinished);
      QVERIFY(w.exportChart(png));
      QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 20000);
      QCOMPARE(exported.at(0).at(1).toString(), QString());
      QVERIFY(QFileInfo(png).size() > 0);
      QVERIFY(!tab->report());
    }
  }

  void aBigFilesFragmentationIsDrawnFromItsSummaries() {
    // A snapshot with the allocator's segments, as a .sawtooth past the budget: the fragmentation
    // chart under the timeline comes from the summaries a window at a time, follows the zoom, and a
    // click on it moves the allocator view to that event.
    auto snapshot = loadTrace(SAWTOOTH_TEST_DATA "/h200_allocator_expandable.pickle");
    QVERIFY(snapshot.ok());
    const QString path = dir_.filePath(QStringLiteral("fragmented.sawtooth"));
    QFile::remove(path);
    QVERIFY(writeNative(*snapshot, path.toStdString()));
    auto history = AllocatorHistory::build(*snapshot, 0);
    QVERIFY(history.ok());
    const auto& largest = history->series().largest_free_block.values;
    const int64_t top = *std::max_element(largest.begin(), largest.end());
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 20000);
    views::FragmentationChart* chart = tab->fragmentationChart();
    QTRY_VERIFY_WITH_TIMEOUT(chart->onDemand() && !chart->isHidden(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(chart->frame() != nullptr, 20000);
    QVERIFY(!chart->frame()->lines[FragmentationSeries::LargestFreeBlock].empty());
    QVERIFY(chart->linePoints(FragmentationSeries::LargestFreeBlock).count() > 0);
    QVERIFY(chart->yAxis()->max() * 1e6 >= static_cast<double>(top));
    // On the allocator-event axis, zoomed: the chart draws the timeline's window.
    tab->timeline()->setXAxisByTime(false);
    QTRY_VERIFY_WITH_TIMEOUT(!chart->xAxisByTime(), 10000);
    const int64_t n = static_cast<int64_t>(largest.size());
    tab->timeline()->zoomTo(static_cast<double>(n / 4), static_cast<double>(n / 2));
    QTRY_VERIFY_WITH_TIMEOUT(chart->frame() && chart->frame()->request.x0 == static_cast<double>(n / 4) &&
                                 !chart->frame()->request.by_time,
                             20000);
    // A click there: the allocator view moves to that event.
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 20000);
    const qint64 target = n / 3;
    emit chart->xClicked(static_cast<double>(target));
    QTRY_COMPARE_WITH_TIMEOUT(tab->allocatorView()->position(), target, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(chart->markerAt() && chart->markerAt()->first == static_cast<double>(target), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 20000);
  }

  void aBigRecordingTakesItsRungOfTheSeedsLadder() {
    // The seed's ladder reads the runs' own measurements: a recording past the budget gives them
    // from its tables, as one read whole does.
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(QStringLiteral(SAWTOOTH_SAMPLES "/checkpointing.sawtooth"));
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == views::TraceTab::State::Summaries, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(tab->hasView(views::TraceTab::View::Peaks), 20000);
    views::LadderView* ladder = w.showLadder();
    bool measured = false;
    for (const LadderRung& r : ladder->rungs())
      if (r.workload == "checkpointing") measured = r.measured;
    QVERIFY2(measured, qPrintable(ladder->text()));
    // Its own ladder is not predicted: the view says why, rather than leaving it out.
    QTRY_VERIFY_WITH_TIMEOUT(ladder->programText().contains(QStringLiteral("read on demand")), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 20000);
  }

  void aBigFilesOutOfMemoryIsExplainedAsTheWholeTraces_data() {
    QTest::addColumn<bool>("indexed");
    QTest::newRow("from the summaries' index") << true;
    QTest::newRow("written before the index: from the pass") << false;
  }

  void aBigFilesOutOfMemoryIsExplainedAsTheWholeTraces() {
    // A snapshot taken at an out-of-memory, as a .sawtooth past the budget: the post-mortem comes
    // from the summaries' index of out-of-memory events (or, for a file written before it, from the
    // pass) and the failure's replayed moment, and the allocator view opens at the failure and
    // explains it, as for the trace read whole.
    QFETCH(bool, indexed);
    auto snapshot = loadTrace(SAWTOOTH_TEST_DATA "/oom_mlp_snapshot_protocol2.pickle.gz");
    QVERIFY(snapshot.ok());
    const QString path = dir_.filePath(QStringLiteral("oom.sawtooth"));
    QFile::remove(path);
    QVERIFY(writeNative(*snapshot, path.toStdString()));
    if (!indexed) {
      auto db = sql::Database::open(path.toStdString(), sql::Database::Mode::Create);
      QVERIFY(db.ok());
      QVERIFY(db->exec("DROP TABLE summary_ooms").ok());
    }
    auto whole = loadTrace(path.toStdString());
    QVERIFY(whole.ok());
    const auto report = buildTraceReport(std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(*whole)));
    QVERIFY(report->oom);
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(tab->hasView(views::TraceTab::View::OutOfMemory), 30000);
    views::OomView* oom = tab->oomView();
    QCOMPARE(oom->blocksModel()->rowCount(), int(report->oom->blocks.rowCount()));
    QVERIFY2(oom->headline().contains(QStringLiteral("Out of memory on")), qPrintable(oom->headline()));
    QVERIFY2(oom->headline().contains(QStringLiteral("on demand")), qPrintable(oom->headline()));
    // Its timeline, from the summaries, up to just after the failure.
    QVERIFY(!oom->timeline()->isHidden());
    QVERIFY(oom->timeline()->overview());
    QTRY_VERIFY_WITH_TIMEOUT(oom->timeline()->frame() != nullptr, 20000);
    const double failure = oom->timeline()->xAxisByTime() ? static_cast<double>(report->oom->t_ns)
                                                          : static_cast<double>(report->oom->index);
    QVERIFY(oom->timeline()->window().hi() >= failure);
    QVERIFY(oom->timeline()->frame()->request.x1 >= failure);
    // It exports as the chart draws it.
    tab->showView(views::TraceTab::View::OutOfMemory);
    {
      const QString png = dir_.filePath(QStringLiteral("oom-timeline.png"));
      QFile::remove(png);
      QSignalSpy exported(&w, &MainWindow::exportFinished);
      QVERIFY(w.exportChart(png));
      QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 20000);
      QCOMPARE(exported.at(0).at(1).toString(), QString());
      QVERIFY(QFileInfo(png).size() > 0);
    }
    views::AllocatorStateView* state = tab->allocatorView();
    QTRY_COMPARE_WITH_TIMEOUT(state->position(), qint64(report->oom->index), 20000);
    auto history = AllocatorHistory::build(*whole, report->oom->device);
    QVERIFY(history.ok());
    const SegmentMap map = segmentMapAt(*whole, *history, report->oom->index);
    QVERIFY(map.oom);
    QTRY_VERIFY_WITH_TIMEOUT(state->oomText()->text().contains(QString::fromStdString(map.oom->summary).toHtmlEscaped()), 20000);
    // Its blocks export as CSV.
    tab->showView(views::TraceTab::View::OutOfMemory);
    const QString csv = dir_.filePath(QStringLiteral("oom-blocks.csv"));
    QSignalSpy exported(&w, &MainWindow::exportFinished);
    QVERIFY(w.exportCsv(QStringLiteral("table"), csv));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 20000);
    QCOMPARE(exported.at(0).at(1).toString(), QString());
    QFile table(csv);
    QVERIFY(table.open(QIODevice::ReadOnly));
    QCOMPARE(table.readAll().count('\n'), qsizetype(report->oom->blocks.rowCount() + 1));
    QVERIFY(!tab->report());
  }
};

QTEST_MAIN(SummaryOpenTest)
#include "summary_open_test.moc"
