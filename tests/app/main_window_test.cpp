#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "app/sawtooth/main_window.h"
#include "app/sawtooth/recent_files.h"

using namespace sawtooth;
using sawtooth::views::TraceTab;

class MainWindowTest : public QObject {
  Q_OBJECT
  static QString data(const char* name) { return QStringLiteral(SAWTOOTH_TEST_DATA "/") + name; }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("SawtoothTest"));
    app::RecentFiles::clear();
    QSettings().setValue(QStringLiteral("firstStartDone"), true);  // no sample tabs in these tests
  }

  void opensATraceShowsItsPeakAndExports() {
    app::MainWindow w;
    w.show();
    TraceTab* tab = w.openFile(data("anatomy_adam_snapshot.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    QCOMPARE(w.tabCount(), 1);
    QCOMPARE(w.tabs()->tabText(0), QStringLiteral("anatomy_adam_snapshot.pickle"));
    QCOMPARE(tab->timeline()->peakPoint(0).y(), 572.522496);
    QVERIFY2(tab->summaryText().contains(QStringLiteral("572.5 MB")), qPrintable(tab->summaryText()));
    QVERIFY(tab->summaryText().contains(QStringLiteral("at event 105")));
    QCOMPARE(tab->events()->model()->rowCount(), 352);
    QVERIFY(app::RecentFiles::load().contains(QFileInfo(data("anatomy_adam_snapshot.pickle")).absoluteFilePath()));

    QTemporaryDir dir;
    QVERIFY(w.exportChart(dir.filePath("chart.png")));
    QVERIFY(!QImage(dir.filePath("chart.png")).isNull());
    QVERIFY(w.exportChart(dir.filePath("chart.svg")));
    QVERIFY(QFileInfo(dir.filePath("chart.svg")).size() > 1000);
    QVERIFY(w.exportCsv(QStringLiteral("events"), dir.filePath("events.csv")));
    QFile events(dir.filePath("events.csv"));
    QVERIFY(events.open(QIODevice::ReadOnly));
    QCOMPARE(events.readAll().count('\n'), 353);
    QVERIFY(w.exportCsv(QStringLiteral("series"), dir.filePath("series.csv")));
    QVERIFY(QFileInfo(dir.filePath("series.csv")).size() > 1000);
  }

  void showsTheReasonWhenAFileCannotBeOpened() {
    app::MainWindow w;
    TraceTab* hostile = w.openFile(data("hostile_global_reduce_p2.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(hostile->state(), TraceTab::State::Failed, 10000);
    QVERIFY2(hostile->errorText().contains(QStringLiteral("byte 32: opcode GLOBAL")), qPrintable(hostile->errorText()));
    TraceTab* missing = w.openFile(QStringLiteral("/nonexistent/rank3.pickle"));
    QTRY_COMPARE_WITH_TIMEOUT(missing->state(), TraceTab::State::Failed, 10000);
    QVERIFY(missing->errorText().contains(QStringLiteral("cannot open")));
    QCOMPARE(w.tabCount(), 2);
    QVERIFY(!w.exportChart(QDir::temp().filePath("never.png")));
  }

  void cancelsLoading() {
    app::MainWindow w;
    TraceTab* tab = w.openFile(data("anatomy_adam_snapshot_protocol0.pickle.gz"));
    tab->cancelLoading();
    QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Cancelled, 10000);
    QVERIFY(tab->errorText().contains(QStringLiteral("cancelled")));
  }

  void opensEveryFormatInTabs() {
    app::MainWindow w;
    const char* files[] = {"anatomy_adam_profiler_trace.json.gz", "oom_mlp_snapshot_protocol2.pickle.gz",
                           "anatomy_adam_snapshot_protocol5.pickle"};
    for (const char* f : files) w.openFile(data(f));
    for (int i = 0; i < w.tabCount(); ++i) {
      auto* tab = qobject_cast<TraceTab*>(w.tabs()->widget(i));
      QTRY_COMPARE_WITH_TIMEOUT(tab->state(), TraceTab::State::Ready, 20000);
    }
    auto* profiler = qobject_cast<TraceTab*>(w.tabs()->widget(0));
    QCOMPARE(profiler->timeline()->peakPoint(0).y(), 572.522496);
  }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
