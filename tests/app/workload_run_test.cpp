// The app's main job, end to end, headless: pick a workload, run the real sawtooth-record as a
// child process at CPU scale, and check that the trace opens with the views for that workload and
// that every bar and label equals what the trace's measurements say. Then cancel, a killed
// recorder, bad parameters, the OOM post-mortem, the ladder, the comparison and the exports.

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <csignal>
#include <cstdio>

#include "app/sawtooth/main_window.h"
#include "app/sawtooth/trace_controller.h"
#include "app/sawtooth/program_dialog.h"
#include "core/analysis/axis_scale.h"
#include "core/analysis/experiment_results.h"
#include "core/analysis/result_text.h"
#include "views/experiment_charts.h"
#include "views/qt_format.h"

using namespace sawtooth;
using sawtooth::app::MainWindow;
using sawtooth::app::RecorderRunner;
using sawtooth::views::TraceTab;

namespace {

// Bounds on waiting for a condition, not timings: a loaded CI machine may take minutes.
constexpr int kPatience = 240000;

// A CPU anatomy run long enough to be stopped from outside.
void selectEndlessCpuAnatomy(app::WorkloadPanel* panel) {
  panel->selectWorkload(QStringLiteral("anatomy"));
  panel->setDevice(QStringLiteral("cpu"));
  panel->setParameter(QStringLiteral("steps"), QStringLiteral("1000000"));
  panel->setParameter(QStringLiteral("width"), QStringLiteral("64"));
}

// The data-parallel workload on two CPU ranks (Gloo).
void selectTwoCpuRanks(app::WorkloadPanel* panel) {
  panel->selectWorkload(QStringLiteral("data-parallel"));
  panel->setDevice(QStringLiteral("cpu"));
  panel->setRanks(2);
}

}  // namespace

class WorkloadRunTest : public QObject {
  Q_OBJECT
  QTemporaryDir out_;

  static QString recorder() { return QStringLiteral(SAWTOOTH_RECORDER_PATH); }
  static QString data(const char* name) { return QStringLiteral(SAWTOOTH_TEST_DATA "/") + name; }

  std::unique_ptr<MainWindow> window() {
    auto w = std::make_unique<MainWindow>(recorder(), out_.path());
    QSignalSpy loaded(w->workloadPanel(), &app::WorkloadPanel::catalogLoaded);
    if (!w->workloadPanel()->catalog()) loaded.wait(kPatience);
    return w;
  }

  // Runs a workload on the CPU and returns the tab its trace opened in.
  TraceTab* record(MainWindow& w, const QString& workload, const QList<QPair<QString, QString>>& params = {}) {
    auto* panel = w.workloadPanel();
    panel->selectWorkload(workload);
    panel->setDevice(QStringLiteral("cpu"));
    for (const auto& [k, v] : params) panel->setParameter(k, v);
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    if (!panel->run()) return nullptr;
    if (!opened.wait(180000)) return nullptr;
    auto* tab = opened.first().at(0).value<TraceTab*>();
    // Ready, and whatever the tab asked for next (the rank lanes) delivered too.
    return QTest::qWaitFor([&] { return tab->state() == TraceTab::State::Ready && w.jobs()->isIdle(); }, kPatience) ? tab : nullptr;
  }

 private slots:
  void initTestCase() {
    if (recorder().isEmpty() || !QFileInfo(recorder()).isExecutable()) QSKIP("sawtooth-record was not built (no LibTorch)");
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("SawtoothWorkloadTest"));
    QSettings().clear();
    QSettings().setValue(QStringLiteral("firstStartDone"), true);
    qRegisterMetaType<TraceTab*>();
    qRegisterMetaType<RecorderRunner::Outcome>();
  }

  void listsTheRecordersWorkloads() {
    auto w = window();
    const auto& catalog = w->workloadPanel()->catalog();
    QVERIFY(catalog.has_value());
    QVERIFY(catalog->workloads.size() >= 4);  // the seed's four, and more
    QVERIFY(catalog->find("checkpointing"));
    w->workloadPanel()->selectWorkload(QStringLiteral("anatomy"));
    w->workloadPanel()->setDevice(QStringLiteral("cpu"));
    QCOMPARE(w->workloadPanel()->parameter(QStringLiteral("width")),
             QString::fromStdString(catalog->find("anatomy")->parameter("width")->cpu_default));
  }

  void anatomyShowsThePlanBesideTheCount() {
    auto w = window();
    TraceTab* tab = record(*w, QStringLiteral("anatomy"));
    QVERIFY(tab);
    QVERIFY(tab->hasView(TraceTab::View::Plan));
    QCOMPARE(tab->currentView(), TraceTab::View::Timeline);
    const Trace& t = tab->analysis()->trace();
    const auto plan = anatomyPlan(t, kCpuDevice);
    QCOMPARE(tab->planChart()->categories().size(), static_cast<int>(plan.size()));
    double most = 0;  // the bars are in the unit that suits the largest
    for (const auto& r : plan) most = std::max({most, r.plan_bytes, r.measured_bytes});
    const double unit = byteUnitFor(most).bytes;
    for (size_t i = 0; i < plan.size(); ++i) {
      QCOMPARE(tab->planChart()->annotations()[static_cast<int>(i)], views::signedPercent(plan[i].error()));
      QCOMPARE(tab->planChart()->barSet(1)->at(static_cast<int>(i)), plan[i].measured_bytes / unit);
    }
    // Parameters, gradients and Adam state are exactly 4P, 4P and 8P: no error on those bars.
    QCOMPARE(tab->planChart()->annotations()[0], QStringLiteral("±0 %"));
    QCOMPARE(tab->planChart()->annotations()[2], QStringLiteral("±0 %"));
    QVERIFY(tab->timeline()->planLabels().first().contains(QStringLiteral("16P")));
    QVERIFY(tab->timeline()->hasCategories());
    tab->timeline()->setStackedCategories(true);
    QVERIFY(tab->timeline()->categoryArea(kCpuDevice, Category::Parameter));
  }

  void checkpointingOpensThePeakComparison() {
    auto w = window();
    TraceTab* tab = record(*w, QStringLiteral("checkpointing"));
    QVERIFY(tab);
    QCOMPARE(tab->currentView(), TraceTab::View::Peaks);
    const auto groups = peakComparison(tab->analysis()->trace());
    const QStringList runs{"store_all", "every_4th_reentrant", "every_4th", "every_2nd_reentrant",
                           "every_2nd", "every_block_reentrant", "every_block"};
    QCOMPARE(groups.size(), size_t{7});
    QCOMPARE(tab->peaksChart()->categories(), runs);
    double most = 0;
    for (const auto& g : groups) most = std::max({most, g.peak_allocated, g.peak_reserved.value_or(0.0)});
    const double unit = byteUnitFor(most).bytes;
    for (int i = 0; i < 7; ++i) QCOMPARE(tab->peaksChart()->barSet(0)->at(i), groups[static_cast<size_t>(i)].peak_allocated / unit);
    // The time is judged against its spread on a shared CPU: the label says what core judged.
    QVERIFY(groups[6].time_vs_baseline);
    const QString expected = QStringLiteral("%1 peak · %2")
                                 .arg(views::signedPercent(groups[6].allocated_change),
                                      QString::fromStdString(timeChangeText(*groups[6].time_vs_baseline)));
    QCOMPARE(tab->peaksChart()->annotations()[6], expected);
    QVERIFY(groups[6].allocated_change < 0);
  }

  void precisionOpensTheTimingBars() {
    auto w = window();
    TraceTab* tab = record(*w, QStringLiteral("precision"));
    QVERIFY(tab);
    QCOMPARE(tab->currentView(), TraceTab::View::Precision);
    const auto rows = precisionResults(tab->analysis()->trace());
    QCOMPARE(rows.size(), size_t{4});
    auto* chart = tab->precisionView()->chart();
    QCOMPARE(chart->whiskerCount(), 4);
    for (int i = 0; i < 4; ++i) QCOMPARE(chart->barSet(0)->at(i), rows[static_cast<size_t>(i)].time.median_ms);
    // On a CPU TF32 is fp32 again: bf16 is compared with fp32 only, as core judged it against its spread.
    QVERIFY(!rows[2].vs_tf32);
    QVERIFY(rows[2].vs_fp32);
    const TimingChange& vs_fp32 = *rows[2].vs_fp32;
    const QString against_fp32 = QString::fromStdString(vs_fp32.meaningful() ? speedupText(vs_fp32.speedup)
                                                                             : speedupVerdictText(vs_fp32));
    QVERIFY2(chart->annotations()[2].contains(against_fp32), qPrintable(chart->annotations()[2]));
    QVERIFY(!chart->annotations()[2].contains(QStringLiteral("×0.")));  // "N× slower", never "×0.1"
    QCOMPARE(tab->precisionView()->tableModel()->rowCount(), 4);
    auto* model = tab->precisionView()->tableModel();
    int settings = -1;
    for (int c = 0; c < model->columnCount(); ++c)
      if (model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == QStringLiteral("settings")) settings = c;
    QVERIFY(settings >= 0);
    QVERIFY(model->index(2, settings).data().toString().contains(QStringLiteral("autocast=BFloat16")));
  }

  void accumulationAndTheLadder() {
    auto w = window();
    TraceTab* tab = record(*w, QStringLiteral("accumulation"));
    QVERIFY(tab);
    QCOMPARE(tab->currentView(), TraceTab::View::Peaks);
    QCOMPARE(tab->peaksChart()->categories(), (QStringList{"k=1", "k=2", "k=4", "k=8"}));
    auto* ladder = w->showLadder();
    const auto& rungs = ladder->rungs();
    QVERIFY(rungs[3].measured);
    QVERIFY2(QString::fromStdString(rungs[3].finding).contains(QStringLiteral("same gradients")), rungs[3].finding.c_str());
    QVERIFY(!rungs[1].measured);  // precision not recorded in this window
    QVERIFY(ladder->text().contains(QStringLiteral("not measured yet: run the precision workload")));
  }

  void dataParallelShowsOneLanePerRank() {
    auto w = window();
    selectTwoCpuRanks(w->workloadPanel());
    TraceTab* tab = record(*w, QStringLiteral("data-parallel"), {{QStringLiteral("variant"), QStringLiteral("sharded")}});
    QVERIFY(tab);
    QCOMPARE(tab->currentView(), TraceTab::View::Ranks);
    auto* ranks = tab->ranksView();
    QCOMPARE(static_cast<int>(ranks->lanes().size()), 2);
    QCOMPARE(ranks->peaks()->categories().size(), 2);
    QCOMPARE(ranks->peaks()->referenceLines().size(), 2);
    QVERIFY(ranks->peaks()->referenceLines()[1].contains(QStringLiteral("8P/2")));
    // Bars are each rank's own peak, and the imbalance is their ratio.
    const auto& trace = tab->analysis()->trace();
    double lo = 1e300, hi = 0;
    for (const auto& r : trace.runs) {
      const double p = r.measurement("peak_allocated_bytes")->value;
      lo = std::min(lo, p), hi = std::max(hi, p);
    }
    QVERIFY(ranks->imbalance() >= 1.0);
    QVERIFY(std::fabs(ranks->imbalance() - hi / lo) < 0.05);  // the lanes count from each rank's own events
    // The lanes share one time range.
    QCOMPARE(ranks->lanes()[0]->window().lo(), ranks->lanes()[1]->window().lo());
    ranks->lanes()[0]->zoomAround(ranks->lanes()[0]->window().lo(), 0.5);
    QCOMPARE(ranks->lanes()[1]->window().hi(), ranks->lanes()[0]->window().hi());
    auto* ladder = w->showLadder();
    QVERIFY(ladder->rungs()[4].measured);
    QVERIFY(QString::fromStdString(ladder->rungs()[4].finding).contains(QStringLiteral("2 rank(s)")));
    // The header names each rank's own peak; two CPU processes are not one device's sum.
    QVERIFY2(tab->summaryText().contains(QStringLiteral("rank 0 (cpu)")), qPrintable(tab->summaryText()));
    QVERIFY(tab->summaryText().contains(QStringLiteral("rank 1 (cpu)")));
  }

  void cancelKeepsThePartialTrace() {
    auto w = window();
    auto* panel = w->workloadPanel();
    selectEndlessCpuAnatomy(panel);
    QSignalSpy finished(panel, &app::WorkloadPanel::recordingFinished);
    QSignalSpy opened(w.get(), &MainWindow::recordingOpened);
    QVERIFY(panel->run());
    QTRY_VERIFY_WITH_TIMEOUT(panel->progressBar()->value() > 0, kPatience);
    panel->cancel();
    QVERIFY(finished.wait(kPatience));
    QCOMPARE(finished.first().at(0).value<RecorderRunner::Outcome>(), RecorderRunner::Outcome::Cancelled);
    QVERIFY(opened.count() == 1 || opened.wait(10000));
    auto* tab = opened.first().at(0).value<TraceTab*>();
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == TraceTab::State::Ready, kPatience);
    QVERIFY(tab->analysis()->trace().events.size() > 100);
    QCOMPARE(QString::fromStdString(tab->analysis()->trace().meta.at("result")), QStringLiteral("interrupted"));
    QVERIFY2(tab->noticeText().contains(QStringLiteral("incomplete recording: interrupted")), qPrintable(tab->noticeText()));
  }

  // Issue 12's live view: while the real recorder writes, a tab shows the timeline growing at
  // 4 refreshes a second, keeps the user's zoom, offers Stop, and gives way to the finished trace.
  void theTimelineGrowsWhileTheRecordingRuns() {
    auto w = window();
    auto* panel = w->workloadPanel();
    selectEndlessCpuAnatomy(panel);
    QSignalSpy opened(w.get(), &MainWindow::recordingOpened);
    QVERIFY(panel->run());
    app::LiveRecordingTab* live = w->liveTab();
    QVERIFY(live);
    QCOMPARE(w->tabs()->currentWidget(), live);
    QCOMPARE(live->path(), panel->runner()->outPath());
    QTRY_VERIFY_WITH_TIMEOUT(live->eventsShown() > 0, kPatience);
    const uint64_t first = live->eventsShown();
    QTRY_VERIFY_WITH_TIMEOUT(live->eventsShown() > first, 10000);  // it grows without reopening
    // The recorder writes summaries as it goes: the chart draws from them.
    QTRY_VERIFY_WITH_TIMEOUT(live->summaries() != nullptr, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(live->chart()->linePoints(kCpuDevice, SeriesKind::Allocated).count() > 0,
                             10000);
    QVERIFY(live->chart()->followsLatest());
    QVERIFY2(live->statusText().contains(QStringLiteral("events")), qPrintable(live->statusText()));

    // At least 4 refreshes a second.
    const int refreshes = live->follower()->refreshes();
    QTest::qWait(2000);
    QVERIFY2(live->follower()->refreshes() - refreshes >= 7, qPrintable(QString::number(live->follower()->refreshes() - refreshes)));

    // The user's zoom is kept while the edge moves on.
    const ZoomWindow& window = live->chart()->window();
    live->chart()->zoomTo(window.boundsLo(), (window.boundsLo() + window.boundsHi()) / 2);
    const double lo = window.lo(), hi = window.hi(), edge = window.boundsHi();
    QTRY_VERIFY_WITH_TIMEOUT(live->chart()->window().boundsHi() > edge, 10000);
    QCOMPARE(live->chart()->window().lo(), lo);
    QCOMPARE(live->chart()->window().hi(), hi);
    QVERIFY(!live->chart()->followsLatest());

    // SAWTOOTH_SCREENSHOT_DIR set: the live tab as a user sees it, for the README.
    if (const QByteArray dir = qgetenv("SAWTOOTH_SCREENSHOT_DIR"); !dir.isEmpty()) {
      w->resize(1500, 950);
      w->show();
      live->chart()->resetZoom();
      QTest::qWait(1500);
      QVERIFY(w->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/live-recording.png")));
      live->chart()->zoomTo(lo, hi);
    }

    // Stop, from the live tab: the finished trace takes its place with the same timeline and zoom,
    // and holds at least what was seen.
    const uint64_t seen = live->eventsShown();
    const auto summaries = live->summaries();
    QSignalSpy finished(panel, &app::WorkloadPanel::recordingFinished);
    emit live->stopRequested();
    // Where it stands, should it not get there: the recorder's outcome and the app's jobs.
    auto where = [&] {
      return QStringLiteral("recorder %1, finished %2 time(s); panel: %3; jobs running: [%4]; %5 tab(s)")
          .arg(panel->isRunning() ? QStringLiteral("running") : QStringLiteral("ended"))
          .arg(finished.count())
          .arg(panel->statusText())
          .arg(w->jobs()->runningTitles().join(QStringLiteral("; ")))
          .arg(w->tabs()->count());
    };
    QVERIFY2(opened.count() > 0 || opened.wait(kPatience), qPrintable(where()));
    QVERIFY(!w->liveTab());
    auto* tab = opened.first().at(0).value<TraceTab*>();
    QCOMPARE(tab->findChild<app::TraceController*>()->summaryTimeline(), summaries);
    // qWaitFor, not QTRY_*: on failure QTRY waits twice its timeout again, past QtTest's watchdog,
    // which then aborts the test without this message.
    QVERIFY2(QTest::qWaitFor([&] { return tab->state() == TraceTab::State::Ready; }, kPatience),
             qPrintable(QStringLiteral("tab state %1 (%2; %3); ")
                            .arg(static_cast<int>(tab->state()))
                            .arg(tab->otherViewsText(), tab->errorMessage()) +
                        where()));
    QVERIFY(tab->analysis()->trace().events.size() >= seen);
    // The timeline taken over reads the finished file as a fresh open does: every event, not the
    // recording as it stood when the live tab last looked.
    {
      Progress none;
      auto fresh = app::SummaryTimeline::open(tab->path().toStdString(), ReadLimits{}, false, none);
      QVERIFY2(fresh && *fresh, fresh ? "no summaries" : fresh.error().message.c_str());
      auto again = (*fresh)->refresh();
      QVERIFY(again);
      QCOMPARE(summaries->events(), again->events);
    }
    QCOMPARE(tab->timeline()->window().lo(), lo);
    QCOMPARE(tab->timeline()->window().hi(), hi);
    QCOMPARE(w->tabs()->indexOf(live), -1);
  }

  // A distributed recording writes a file per rank and the merged file only at the end: the live
  // tab follows the ranks' files as the recorder names them, a labelled line per rank.
  void aDistributedRecordingGrowsRankByRank() {
    auto w = window();
    auto* panel = w->workloadPanel();
    selectTwoCpuRanks(panel);
    panel->setParameter(QStringLiteral("steps"), QStringLiteral("1000000"));
    panel->setParameter(QStringLiteral("width"), QStringLiteral("64"));
    QSignalSpy finished(panel, &app::WorkloadPanel::recordingFinished);
    QVERIFY(panel->run());
    app::LiveRecordingTab* live = w->liveTab();
    QVERIFY(live);
    QTRY_COMPARE_WITH_TIMEOUT(live->follower()->files(), 2, kPatience);  // the merged file is not followed
    // Drawn from the ranks' rows or, once both files' summaries open, from those (the rows then stop
    // where they are): a device per rank, named after it, and the events shown keep growing.
    auto labelled = [&] {
      QStringList labels;
      if (const auto overview = live->chart()->overview())
        for (const TimelineOverview::Device& d : overview->devices)
          if (d.points > 0) labels << QString::fromStdString(d.name).section(u' ', 0, 1);
      labels.sort();
      labels.removeDuplicates();
      return labels;
    };
    QTRY_COMPARE_WITH_TIMEOUT(labelled(), (QStringList{QStringLiteral("rank 0"), QStringLiteral("rank 1")}), kPatience);
    const uint64_t first = live->eventsShown();
    QTRY_VERIFY_WITH_TIMEOUT(live->eventsShown() > first, 10000);
    for (const TimelineOverview::Device& d : live->chart()->overview()->devices) {
      if (d.points == 0) continue;
      QTRY_VERIFY_WITH_TIMEOUT(live->chart()->line(d.device, SeriesKind::Allocated), 5000);
      const QString name = live->chart()->line(d.device, SeriesKind::Allocated)->name();
      QVERIFY2(name.startsWith(QString::fromStdString(d.name)) && name.contains(QStringLiteral(" · cpu")), qPrintable(name));
    }
    QVERIFY2(live->statusText().contains(QStringLiteral("2 files")), qPrintable(live->statusText()));
    if (const QByteArray dir = qgetenv("SAWTOOTH_SCREENSHOT_DIR"); !dir.isEmpty()) {
      w->resize(1500, 950);
      w->show();
      live->chart()->resetZoom();
      QTest::qWait(2500);
      QVERIFY(w->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/live-ranks.png")));
    }
    emit live->stopRequested();
    QVERIFY(finished.wait(kPatience));
    QVERIFY(!w->liveTab());
  }

  void aKilledRecorderLeavesTheAppAlive() {
    auto w = window();
    auto* panel = w->workloadPanel();
    selectEndlessCpuAnatomy(panel);
    QSignalSpy finished(panel, &app::WorkloadPanel::recordingFinished);
    QVERIFY(panel->run());
    QTRY_VERIFY_WITH_TIMEOUT(panel->progressBar()->value() > 0, kPatience);
    QTest::qWait(300);  // past one writer batch
    ::kill(static_cast<pid_t>(panel->runner()->processId()), SIGKILL);
    QVERIFY(finished.wait(kPatience));
    QCOMPARE(finished.first().at(0).value<RecorderRunner::Outcome>(), RecorderRunner::Outcome::Crashed);
    QVERIFY2(panel->statusText().contains(QStringLiteral("crashed")), qPrintable(panel->statusText()));
    // The app is alive and can run again.
    QVERIFY(!panel->isRunning());
    QVERIFY(w->isEnabled());
  }

  // The child half of aRecordingDiesWithItsApp: an app that starts an endless recording and waits.
  void recordUntilKilled() {
    if (qEnvironmentVariableIsEmpty("SAWTOOTH_TEST_RECORD_UNTIL_KILLED")) QSKIP("run by aRecordingDiesWithItsApp");
    auto w = window();
    auto* panel = w->workloadPanel();
    selectEndlessCpuAnatomy(panel);
    QVERIFY(panel->run());
    std::printf("recorder %lld\n", static_cast<long long>(panel->runner()->processId()));
    std::fflush(stdout);
    QTest::qWait(kPatience);
  }

  void aRecordingDiesWithItsApp() {
    QProcess app;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SAWTOOTH_TEST_RECORD_UNTIL_KILLED"), QStringLiteral("1"));
    app.setProcessEnvironment(env);
    app.start(QCoreApplication::applicationFilePath(), {QStringLiteral("recordUntilKilled")});
    pid_t recorder = 0;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          const QString out = QString::fromUtf8(app.readAllStandardOutput());
          const auto at = out.indexOf(QStringLiteral("recorder "));
          if (at >= 0) recorder = static_cast<pid_t>(out.mid(at + 9).section(QLatin1Char('\n'), 0, 0).toLongLong());
          return recorder > 0 || app.state() == QProcess::NotRunning;
        }(),
        kPatience);
    QVERIFY2(recorder > 0, "the child app never started its recording");
    ::kill(static_cast<pid_t>(app.processId()), SIGKILL);  // no destructor, no Stop: the app just dies
    QVERIFY(app.waitForFinished(kPatience));
    // Orphaned, the recorder is reaped by whoever adopts it; until then it may be a zombie.
    auto gone = [recorder] {
      QFile stat(QStringLiteral("/proc/%1/stat").arg(recorder));
      if (!stat.open(QIODevice::ReadOnly)) return true;
      const QByteArray line = stat.readAll();
      return line.mid(line.lastIndexOf(')') + 2, 1) == "Z";
    };
    QTRY_VERIFY_WITH_TIMEOUT(gone(), kPatience);
  }

  void recordsAProgramFromTheDialog() {
    const QString python = QStringLiteral(SAWTOOTH_TORCH_PYTHON);
    if (python.isEmpty() || !QFileInfo(python).isExecutable()) QSKIP("no Python with torch (scripts/setup.sh makes one)");
    QFile script(out_.filePath(QStringLiteral("train_small.py")));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("import os, sys, traceback, torch\n"
                 "assert os.environ['SAWTOOTH_APP_TEST'] == 'yes'\n"
                 "m = torch.nn.Linear(32, 32)\n"
                 "opt = torch.optim.Adam(m.parameters())\n"
                 "for step in range(3):\n"
                 "    opt.zero_grad(); loss = m(torch.randn(8, 32)).sum(); loss.backward(); opt.step()\n"
                 "    print(f'step {step}: loss {loss.item():.4f}', flush=True)\n"
                 "if int(sys.argv[1]):\n"
                 "    try:\n"
                 "        m(torch.randn(8, 31))\n"
                 "    except RuntimeError:\n"
                 "        traceback.print_exc()\n"
                 "sys.exit(int(sys.argv[1]))\n");
    script.close();

    app::ProgramDialog dialog;
    dialog.setCommandLine(QStringLiteral("%1 train_small.py 0").arg(python));
    dialog.setWorkingFolder(QStringLiteral("/no/such/folder"));
    QVERIFY2(dialog.problem().contains(QStringLiteral("does not exist")), qPrintable(dialog.problem()));
    dialog.setWorkingFolder(out_.path());
    dialog.setEnvironment(QStringLiteral("not an entry"));
    QVERIFY(dialog.problem().contains(QStringLiteral("KEY=VALUE")));
    dialog.setEnvironment(QStringLiteral("# the test's own\nSAWTOOTH_APP_TEST=yes\n"));
    dialog.setStacks(QStringLiteral("none"));
    dialog.capture()->setSteps(QStringLiteral("9:2"));
    QVERIFY2(dialog.problem().contains(QStringLiteral("--steps 9:2")), qPrintable(dialog.problem()));
    dialog.capture()->setSteps(QStringLiteral("1:"));  // the program's optimizer steps 1 and 2
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    RecorderRunner::Request request = dialog.request();
    QCOMPARE(request.command, (QStringList{python, "train_small.py", "0"}));
    QCOMPARE(request.environment, QStringList{"SAWTOOTH_APP_TEST=yes"});
    QVERIFY(request.program_options.join(' ').contains(QStringLiteral("--stacks none")));
    QVERIFY(request.program_options.join(' ').contains(QStringLiteral("--kernels off")));  // the default
    dialog.setKernels(true);
    QVERIFY(dialog.request().program_options.join(' ').contains(QStringLiteral("--kernels on")));
    dialog.setKernels(false);
    QVERIFY(request.program_options.join(' ').contains(QStringLiteral("--modules off")));  // the default
    dialog.setModules(true);  // the recording below has the program's modules
    request = dialog.request();
    QVERIFY(request.program_options.join(' ').contains(QStringLiteral("--modules on")));
    dialog.remember();
    QCOMPARE(app::ProgramDialog::recentCommands().first(), QStringLiteral("%1 train_small.py 0").arg(python));

    auto w = window();
    auto* panel = w->workloadPanel();
    QSignalSpy opened(w.get(), &MainWindow::recordingOpened);
    QVERIFY(panel->runProgram(request));
    QVERIFY(opened.wait(180000));
    QCOMPARE(opened.first().at(1).value<RecorderRunner::Outcome>(), RecorderRunner::Outcome::Ok);
    auto* tab = opened.first().at(0).value<TraceTab*>();
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == TraceTab::State::Ready, kPatience);
    QVERIFY(tab->analysis()->trace().events.size() > 10);
    QCOMPARE(QString::fromStdString(tab->analysis()->trace().meta.at("program.exit")), QStringLiteral("exit 0"));
    QCOMPARE(QString::fromStdString(tab->analysis()->trace().meta.at("modules")), QStringLiteral("on"));
    QVERIFY(!tab->analysis()->trace().modules.empty());
    QVERIFY(request.program_options.join(' ').contains(QStringLiteral("--steps 1:")));
    QVERIFY(QString::fromStdString(tab->analysis()->trace().meta.at("window.steps")).startsWith(QStringLiteral("1:")));
    // The window starts mid-run: the only notice is the frees of blocks from before it.
    QVERIFY2(tab->noticeText().isEmpty() || tab->noticeText().contains(QStringLiteral("allocated before it began")),
             qPrintable(tab->noticeText()));

    // A program that fails: its trace still opens, and the status says how it ended.
    request.command.last() = QStringLiteral("3");
    opened.clear();
    QVERIFY(panel->runProgram(request));
    QVERIFY(opened.wait(180000));
    QCOMPARE(opened.first().at(1).value<RecorderRunner::Outcome>(), RecorderRunner::Outcome::ProgramExited);
    QCOMPARE(panel->statusText(), QStringLiteral("The recording ended with the program's failure: the program exited with status 3."));
    // Its output, traceback included, is the first thing its tab shows (issue 29, item 3).
    auto* failed = opened.first().at(0).value<TraceTab*>();
    QTRY_VERIFY_WITH_TIMEOUT(failed->state() == TraceTab::State::Ready, kPatience);
    QCOMPARE(failed->currentView(), TraceTab::View::Console);
    const QString printed = failed->console()->text();
    QVERIFY2(printed.contains(QStringLiteral("step 2: loss")), qPrintable(printed));
    QVERIFY2(printed.contains(QStringLiteral("Traceback (most recent call last)")) &&
                 printed.contains(QStringLiteral("cannot be multiplied")),
             qPrintable(printed));
    if (const QByteArray dir = qgetenv("SAWTOOTH_SCREENSHOT_DIR"); !dir.isEmpty()) {
      w->resize(1500, 950);
      w->show();
      w->tabs()->setCurrentWidget(failed);
      QTest::qWait(500);
      QVERIFY(w->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/console.png")));
    }

    // A command that does not exist: said so (not "refused its parameters"), nothing opens.
    QSignalSpy finished(panel, &app::WorkloadPanel::recordingFinished);
    request.command = {QStringLiteral("no-such-command-sawtooth")};
    QVERIFY(panel->runProgram(request));
    QVERIFY(finished.wait(kPatience));
    QCOMPARE(finished.first().at(0).value<RecorderRunner::Outcome>(), RecorderRunner::Outcome::ProgramNotStarted);
    QVERIFY2(panel->statusText().contains(QStringLiteral("could not start the program")), qPrintable(panel->statusText()));
  }

  void closingTheWindowStopsItsRecording() {
    auto w = window();
    auto* panel = w->workloadPanel();
    selectEndlessCpuAnatomy(panel);
    QVERIFY(panel->run());
    QTRY_VERIFY_WITH_TIMEOUT(panel->progressBar()->value() > 0, kPatience);
    const auto pid = static_cast<pid_t>(panel->runner()->processId());
    w.reset();  // nothing may report to the window being destroyed
    QVERIFY(::kill(pid, 0) != 0);  // the recorder is gone (reaped)
  }

  void badParametersAreRefusedBeforeRunning() {
    auto w = window();
    auto* panel = w->workloadPanel();
    panel->selectWorkload(QStringLiteral("anatomy"));
    panel->setParameter(QStringLiteral("width"), QStringLiteral("abc"));
    QVERIFY(!panel->run());
    QVERIFY(panel->statusText().contains(QStringLiteral("width: not a whole number")));
    panel->resetParameters();
    QVERIFY(panel->validationErrors().isEmpty());
  }

  void captureOptionsReachTheRecorder() {
    auto w = window();
    auto* panel = w->workloadPanel();
    auto* capture = panel->captureOptions();
    capture->setSteps(QStringLiteral("9:2"));
    panel->selectWorkload(QStringLiteral("anatomy"));
    QVERIFY(!panel->run());
    QVERIFY2(panel->statusText().contains(QStringLiteral("--steps 9:2: B must be above A")), qPrintable(panel->statusText()));
    capture->setSteps(QStringLiteral("1:3"));
    capture->setWindowEvents(QStringLiteral("400"));
    capture->setSampleInterval(20);
    QCOMPARE(capture->recorderArguments(), (QStringList{"--steps", "1:3", "--window-events", "400", "--sample-interval", "20"}));
    TraceTab* tab = record(*w, QStringLiteral("anatomy"), {{"steps", "4"}, {"width", "64"}});
    QVERIFY(tab);
    const auto& meta = tab->analysis()->trace().meta;
    QCOMPARE(QString::fromStdString(meta.at("window.steps")), QStringLiteral("1:3"));
    QCOMPARE(QString::fromStdString(meta.at("window.last_events")), QStringLiteral("400"));
    QVERIFY(tab->analysis()->trace().events.size() <= 400 + 16);  // the window, and the driver rows at its start
    // Kept for the next recording, until reset.
    QCOMPARE(QSettings().value(QStringLiteral("capture/steps")).toString(), QStringLiteral("1:3"));
    panel->resetParameters();
    QVERIFY(capture->recorderArguments().isEmpty());
    capture->save();
  }

  void outOfMemoryPostMortem() {
    auto w = window();
    TraceTab* tab = w->openFile(data("oom_mlp_snapshot_protocol2.pickle.gz"));
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    QCOMPARE(tab->currentView(), TraceTab::View::OutOfMemory);
    QCOMPARE(tab->oomView()->blocksModel()->rowCount(), 8);
    QVERIFY2(tab->oomView()->headline().contains(QStringLiteral("asked for <b>67.1 MB</b>")), qPrintable(tab->oomView()->headline()));
    QVERIFY(tab->oomView()->headline().contains(QStringLiteral("536.9 MB")));
    QCOMPARE(tab->oomView()->timeline()->oomMarkers(), 1);
    QVERIFY(!tab->oomView()->blocksModel()->index(0, 5).data().toString().isEmpty());  // frames
    QTemporaryDir dir;
    QVERIFY(w->exportChart(dir.filePath("oom.svg")));
    QVERIFY(w->exportCsv(QStringLiteral("table"), dir.filePath("blocks.csv")));
    QTRY_VERIFY_WITH_TIMEOUT(w->jobs()->isIdle(), kPatience);
    QFile csv(dir.filePath("blocks.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll().count('\n'), 9);
  }

  void samplesCompareAndExports() {
    auto w = window();
    QCOMPARE(w->openSamples(), 5);
    for (TraceTab* t : w->traceTabs()) QTRY_COMPARE_WITH_TIMEOUT(t->state(), TraceTab::State::Ready, kPatience);
    auto tabs = w->traceTabs();
    // The GPT-2 sample (a program recorded by sawtooth-record) shows which module holds the peak.
    TraceTab* gpt2 = tabs.back();
    QVERIFY(gpt2->path().endsWith(QStringLiteral("gpt2.sawtooth")));
    QVERIFY(gpt2->hasView(TraceTab::View::Modules));
    gpt2->showView(TraceTab::View::Modules);
    QTRY_VERIFY_WITH_TIMEOUT(gpt2->modulesView()->headline()->text().contains(QStringLiteral("in 139 modules")), kPatience);
    auto* ladder = w->showLadder();
    QVERIFY(ladder->rungs()[1].measured);
    QVERIFY(ladder->rungs()[2].measured);
    QVERIFY(ladder->rungs()[3].measured);
    auto* compare = w->compare(tabs[0], tabs[1]);
    QVERIFY(compare);
    QTRY_VERIFY_WITH_TIMEOUT(w->jobs()->isIdle(), kPatience);
    QVERIFY(compare->differencesModel()->rowCount() >= 2);
    QVERIFY(compare->timeline()->line(0, SeriesKind::Allocated));
    QVERIFY(compare->timeline()->line(kCompareOffset, SeriesKind::Allocated));

    QTemporaryDir dir;
    w->tabs()->setCurrentWidget(tabs[1]);  // checkpointing: the peak comparison
    QVERIFY(w->exportChart(dir.filePath("peaks.png")));
    QVERIFY(w->exportChart(dir.filePath("peaks.svg")));
    QVERIFY(w->exportCsv(QStringLiteral("table"), dir.filePath("runs.csv")));
    QTRY_VERIFY_WITH_TIMEOUT(w->jobs()->isIdle(), kPatience);
    QVERIFY(!QImage(dir.filePath("peaks.png")).isNull());
    QFile runs(dir.filePath("runs.csv"));
    QVERIFY(runs.open(QIODevice::ReadOnly));
    const QByteArray text = runs.readAll();
    QCOMPARE(text.count('\n'), 5);  // header + four runs
    QVERIFY(text.contains("peak allocated bytes (bytes)"));
  }
};

QTEST_MAIN(WorkloadRunTest)
#include "workload_run_test.moc"
