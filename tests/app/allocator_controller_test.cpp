// The allocator views' jobs, run by the app's JobRunner: after an analysis the replay, the
// fragmentation series, the segment map at the peak and the live bytes at the peak all arrive;
// scrubbing coalesces to the newest request; the timeline's cursor moves the map; a newer trace
// drops the older one's results. In the window: the comparison's call-site diff reaches its tab,
// and the allocator views and call sites export (PNG, SVG, CSV of raw numbers) as jobs.
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "app/sawtooth/allocator_controller.h"
#include "app/sawtooth/job_runner.h"
#include "app/sawtooth/main_window.h"
#include "app/sawtooth/recent_files.h"
#include "core/analysis/live_allocations.h"
#include "core/io/trace_loader.h"
#include "tests/core/module_trace.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

QString data(const char* name) { return QStringLiteral(SAWTOOTH_TEST_DATA "/") + QLatin1String(name); }

std::shared_ptr<const TraceAnalysis> analyse(const char* name) {
  auto trace = loadTrace(data(name).toStdString());
  if (!trace) qFatal("%s", trace.error().message.c_str());
  return std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(std::move(*trace)));
}

bool waitIdle(app::JobRunner& jobs) { return QTest::qWaitFor([&] { return jobs.isIdle(); }, 60000); }

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class AllocatorControllerTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("SawtoothTest"));
    app::RecentFiles::clear();
    QSettings().setValue(QStringLiteral("firstStartDone"), true);  // no sample tabs in these tests
  }

  void deliversEveryViewFromTheJobRunner() {
    const auto analysis = analyse("anatomy_adam_snapshot.pickle");
    app::JobRunner jobs;
    TimelineChart timeline;
    AllocatorStateView state;
    FragmentationChart fragmentation;
    LiveBytesView live;
    timeline.setAnalysis(analysis);
    app::AllocatorController controller(jobs, QStringLiteral("t"), {&timeline, &state, &fragmentation, &live}, nullptr);
    QSignalSpy started(&jobs, &app::JobRunner::jobStarted);
    controller.setAnalysis(analysis);
    QVERIFY(waitIdle(jobs));
    QVERIFY(controller.history());
    QStringList names;
    for (const auto& args : started) names << args.at(1).toString();
    QVERIFY2(names.contains(QStringLiteral("t replay")) && names.contains(QStringLiteral("t map")) &&
                 names.contains(QStringLiteral("t live")),
             qPrintable(names.join(',')));
    const auto& h = *controller.history();
    QVERIFY(state.segmentMap()->map());
    QCOMPARE(state.segmentMap()->map()->state.position, h.report().peak_position);
    QCOMPARE(state.eventBox()->maximum(), static_cast<int>(h.events().size()) - 1);
    QVERIFY(fragmentation.series());
    QVERIFY(live.liveBytes());
    QVERIFY(live.liveBytes()->at_peak);
    QCOMPARE(live.liveBytes()->total, scopePeak(analysis->trace(), 0).bytes);
    QCOMPARE(live.model()->rowCount(), static_cast<int>(live.liveBytes()->sites.size()));

    // Scrub three times at once: the last request wins, and at most two maps are made (the one
    // running and the newest waiting), never one per request.
    started.clear();
    state.eventBox()->setValue(5);
    state.eventBox()->setValue(9);
    state.eventBox()->setValue(12);
    QVERIFY(waitIdle(jobs));
    QCOMPARE(state.segmentMap()->map()->state.position, 12);
    QCOMPARE(state.eventBox()->value(), 12);
    QVERIFY2(started.count() <= 2, qPrintable(QString::number(started.count())));

    // The timeline's cursor on a global event: the map follows to that event's position.
    const uint64_t event = h.events()[20];
    emit timeline.eventHovered(static_cast<qint64>(event));
    QVERIFY(waitIdle(jobs));
    QCOMPARE(state.segmentMap()->map()->state.position, 20);
    state.followBox()->setChecked(false);
    emit timeline.eventHovered(static_cast<qint64>(h.events()[30]));
    QVERIFY(waitIdle(jobs));
    QCOMPARE(state.segmentMap()->map()->state.position, 20);

    // A click on the fragmentation chart: the map and the live bytes at that event.
    emit fragmentation.positionClicked(40);
    QVERIFY(waitIdle(jobs));
    QCOMPARE(state.segmentMap()->map()->state.position, 40);
    QCOMPARE(live.liveBytes()->position, 40);
    QVERIFY(!live.liveBytes()->at_peak);
  }

  // The Modules view's job beside the live bytes: at the peak, then at an event clicked on the
  // fragmentation chart; a PyTorch snapshot's view says why it has no modules.
  void deliversTheModulesAtThePeakAndAtAClick() {
    const auto analysis = std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(test::moduleTrace()));
    app::JobRunner jobs;
    AllocatorStateView state;
    FragmentationChart fragmentation;
    LiveBytesView live;
    ModulesView modules;
    app::AllocatorController controller(jobs, QStringLiteral("m"), {nullptr, &state, &fragmentation, &live, &modules},
                                        nullptr);
    controller.setAnalysis(analysis);
    QVERIFY(waitIdle(jobs));
    QVERIFY(modules.modules());
    QVERIFY(modules.modules()->memory.at_peak);
    QCOMPARE(modules.modules()->memory.live_bytes, 4250);
    QCOMPARE(modules.model()->rowCount(), 5);  // Net, its three layers, (outside modules)
    emit fragmentation.positionClicked(3);
    QVERIFY(waitIdle(jobs));
    QCOMPARE(modules.modules()->memory.position, 3);
    QVERIFY(!modules.modules()->memory.at_peak);

    controller.setAnalysis(analyse("anatomy_adam_snapshot.pickle"));
    QVERIFY(waitIdle(jobs));
    QVERIFY(modules.modules() && !modules.modules()->memory.unavailable.empty());
    QVERIFY(!modules.tableData());
    QVERIFY(modules.recordAgainButton()->isHidden());  // not a program of sawtooth-record's
    QVERIFY2(modules.headline()->text().contains(QStringLiteral("PyTorch's memory snapshots record no modules")),
             qPrintable(modules.headline()->text()));
  }

  void aNewerTraceDropsTheOlderResults() {
    const auto first = analyse("anatomy_adam_snapshot.pickle");
    const auto second = analyse("oom_mlp_snapshot_protocol2.pickle.gz");
    app::JobRunner jobs;
    AllocatorStateView state;
    FragmentationChart fragmentation;
    LiveBytesView live;
    app::AllocatorController controller(jobs, QStringLiteral("t"), {nullptr, &state, &fragmentation, &live}, nullptr);
    QSignalSpy finished(&jobs, &app::JobRunner::jobFinished);
    controller.setAnalysis(first);
    controller.setAnalysis(second);  // before the first's jobs deliver
    QVERIFY(waitIdle(jobs));
    int dropped = 0;
    for (const auto& args : finished) dropped += args.at(2).toBool() ? 0 : 1;
    QCOMPARE(dropped, 2);  // the first trace's replay and live bytes
    QCOMPARE(controller.history()->events().size(), allocatorEvents(second->trace(), controller.history()->device()).size());
    QCOMPARE(live.liveBytes()->total, scopePeak(second->trace(), live.liveBytes()->device).bytes);
    QVERIFY(state.segmentMap()->map()->oom.has_value());  // the second trace opens at its OOM
    QVERIFY(state.oomText()->isVisibleTo(&state));
  }

  void aTraceWithoutSegmentsSaysSo() {
    const auto analysis = analyse("anatomy_adam_profiler_trace.json.gz");
    app::JobRunner jobs;
    AllocatorStateView state;
    FragmentationChart fragmentation;
    LiveBytesView live;
    app::AllocatorController controller(jobs, QStringLiteral("t"), {nullptr, &state, &fragmentation, &live}, nullptr);
    controller.setAnalysis(analysis);
    QVERIFY(waitIdle(jobs));
    QVERIFY(!controller.history());
    QVERIFY2(state.headline()->text().startsWith(QStringLiteral("No allocator state")), qPrintable(state.headline()->text()));
    QVERIFY(live.liveBytes());  // live bytes by call site need no segments
  }

  void theWindowDiffsByCallSiteAndExportsTheAllocatorViews() {
    app::MainWindow w{QString()};
    w.resize(1400, 900);
    w.show();
    TraceTab* a = w.openFile(data("synthetic_window_streams.pickle"));
    TraceTab* b = w.openFile(data("synthetic_expandable_streams.pickle"));
    QTRY_VERIFY_WITH_TIMEOUT(a->state() == TraceTab::State::Ready && b->state() == TraceTab::State::Ready, 20000);
    QVERIFY(waitIdle(*w.jobs()));
    QVERIFY(a->allocatorView()->segmentMap()->map());  // the tab's controller ran the replay and the map
    QVERIFY(a->liveBytesView()->liveBytes());

    QTemporaryDir dir;
    QSignalSpy exported(&w, &app::MainWindow::exportFinished);
    w.tabs()->setCurrentWidget(a);
    a->showView(TraceTab::View::Allocator);
    QVERIFY(w.exportChart(dir.filePath("allocator.png")));
    QVERIFY(w.exportChart(dir.filePath("allocator.svg")));
    a->showView(TraceTab::View::LiveBytes);
    QVERIFY(w.exportChart(dir.filePath("live.png")));
    QVERIFY(w.exportCsv(QStringLiteral("table"), dir.filePath("live.csv")));

    QVERIFY(w.compare(a, b));
    QVERIFY(waitIdle(*w.jobs()));
    auto* comparison = qobject_cast<views::ComparisonTab*>(w.tabs()->widget(w.tabs()->count() - 1));
    QVERIFY(comparison);
    comparison->showSites();
    auto* sites = comparison->sitesView();
    QVERIFY(sites);
    QVERIFY(sites->model()->rowCount() > 0);
    QVERIFY2(sites->summary()->text().contains(QStringLiteral("Peak:")), qPrintable(sites->summary()->text()));
    QVERIFY(w.exportChart(dir.filePath("sites.svg")));
    QVERIFY(w.exportCsv(QStringLiteral("table"), dir.filePath("sites.csv")));
    QVERIFY(waitIdle(*w.jobs()));

    QCOMPARE(exported.count(), 6);
    for (const auto& args : exported) QVERIFY2(args.at(1).toString().isEmpty(), qPrintable(args.at(1).toString()));
    QVERIFY(!QImage(dir.filePath("allocator.png")).isNull());
    QVERIFY(!QImage(dir.filePath("live.png")).isNull());
    QVERIFY(readAll(dir.filePath("allocator.svg")).contains("<svg"));
    QVERIFY(readAll(dir.filePath("sites.svg")).contains("<svg"));
    // Raw numbers, the unit in the header, one row per site.
    const QList<QByteArray> live = readAll(dir.filePath("live.csv")).split('\n');
    QVERIFY2(live[0].contains("live (bytes)"), live[0].constData());
    QCOMPARE(live.size(), static_cast<int>(a->liveBytesView()->liveBytes()->sites.size()) + 2);
    QVERIFY2(!live[1].contains(" MB") && !live[1].contains(" KB"), live[1].constData());
    const QList<QByteArray> diff = readAll(dir.filePath("sites.csv")).split('\n');
    QVERIFY2(diff[0].contains("A at its peak (bytes)") && diff[0].contains("change (bytes)"), diff[0].constData());
    QCOMPARE(diff.size(), sites->model()->rowCount() + 2);
  }
};

QTEST_MAIN(AllocatorControllerTest)
#include "allocator_controller_test.moc"
