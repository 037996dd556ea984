// A PyTorch snapshot too large to read whole (issue 25, item 4): the tab offers to convert it into
// the user's cache, converts it with progress and Cancel, opens the conversion, and opens it from
// there at once the next time; a cancelled conversion leaves nothing in the cache. A load cancelled
// (Cancel, or the tab closed) stops where it is and delivers nothing.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>

#include "app/sawtooth/main_window.h"
#include "app/sawtooth/reading_limits.h"
#include "app/sawtooth/trace_controller.h"
#include "app/sawtooth/trace_jobs.h"
#include "core/io/trace_convert.h"
#include "core/io/trace_loader.h"

using namespace sawtooth;
using namespace sawtooth::app;
using State = views::TraceTab::State;

class SnapshotConversionTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString snapshot_;
  size_t events_ = 0;

  static QStringList cached() { return QDir(conversionCacheDir()).entryList(QDir::Files); }
  static TraceController* controllerOf(views::TraceTab* tab) { return tab->findChild<TraceController*>(); }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("sawtooth-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("snapshot-conversion-test"));
    snapshot_ = dir_.filePath(QStringLiteral("big.pickle"));
    QVERIFY(QFile::copy(QStringLiteral(SAWTOOTH_TEST_DATA "/anatomy_adam_snapshot.pickle"), snapshot_));
    auto trace = loadTrace(snapshot_.toStdString());
    QVERIFY(trace.ok());
    events_ = trace->events.size();
  }
  void init() {
    QSettings().clear();
    QDir(conversionCacheDir()).removeRecursively();
  }

  void offeredConvertedOpenedThenReopenedFromTheCache() {
    saveWholeFileBudget(1024);  // every snapshot is "too large"
    QVERIFY(estimatedMemoryToReadSnapshot(snapshot_.toStdString()) > 1024);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(snapshot_);
    QCOMPARE(tab->state(), State::ConversionOffered);
    QVERIFY2(tab->errorMessage().contains(QStringLiteral("Converted once into a .sawtooth file in your cache")),
             qPrintable(tab->errorMessage()));
    QVERIFY(cached().isEmpty());
    QVERIFY(w.jobs()->isIdle());  // nothing is read until the user says so

    QSignalSpy progress(w.jobs(), &JobRunner::jobProgress);
    tab->findChild<QPushButton*>(QStringLiteral("convert"))->click();
    QCOMPARE(tab->state(), State::Loading);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == State::Summaries || tab->state() == State::Ready, 30000);
    QVERIFY(progress.count() > 0);
    // The conversion, in the cache, named by the snapshot's content, holds its events.
    const QString converted = controllerOf(tab)->source();
    QCOMPARE(QFileInfo(converted).absolutePath(), QFileInfo(conversionCacheDir()).absoluteFilePath());
    QVERIFY(converted.endsWith(QLatin1String(".sawtooth")));
    QCOMPARE(cached(), QStringList{QFileInfo(converted).fileName()});
    QVERIFY(tab->overview());
    QCOMPARE(tab->overview()->events, uint64_t(events_));
    QCOMPARE(tab->path(), QFileInfo(snapshot_).absoluteFilePath());  // the tab is the snapshot's
    const QDateTime written = QFileInfo(converted).lastModified();
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 30000);

    // The next open: from the conversion at once, no offer, nothing converted again.
    auto* again = w.openFile(snapshot_);
    QVERIFY(again->state() != State::ConversionOffered);
    QCOMPARE(controllerOf(again)->source(), converted);
    QTRY_VERIFY_WITH_TIMEOUT(again->state() == State::Summaries || again->state() == State::Ready, 30000);
    QCOMPARE(again->overview()->events, uint64_t(events_));
    QCOMPARE(QFileInfo(converted).lastModified(), written);
    QCOMPARE(cached().size(), 1);
  }

  void aCancelledConversionLeavesNothingInTheCache() {
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(snapshot_);
    QCOMPARE(tab->state(), State::ConversionOffered);
    tab->findChild<QPushButton*>(QStringLiteral("convert"))->click();
    QCOMPARE(tab->state(), State::Loading);
    emit tab->cancelRequested();  // the loading page's Cancel
    QCOMPARE(tab->state(), State::Cancelled);
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 30000);  // the worker has stopped
    QCOMPARE(tab->state(), State::Cancelled);
    QVERIFY2(cached().isEmpty(), qPrintable(cached().join(QLatin1Char(' '))));
    QVERIFY(!findCachedConversion(conversionCacheDir().toStdString(), snapshot_.toStdString()));
    // Opened again: offered again (no conversion was kept).
    QCOMPARE(w.openFile(snapshot_)->state(), State::ConversionOffered);
  }

  void readWholeAnywayLoadsTheSnapshotItself() {
    saveWholeFileBudget(1024);
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(snapshot_);
    QCOMPARE(tab->state(), State::ConversionOffered);
    tab->findChild<QPushButton*>(QStringLiteral("readWhole"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == State::Ready, 30000);
    QCOMPARE(controllerOf(tab)->source(), tab->path());
    QVERIFY(cached().isEmpty());
  }

  void aSnapshotWithinTheBudgetIsReadWholeAsBefore() {
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(snapshot_);
    QCOMPARE(tab->state(), State::Loading);
    QTRY_VERIFY_WITH_TIMEOUT(tab->state() == State::Ready, 30000);
    QVERIFY(cached().isEmpty());
  }

  void aCancelledLoadStopsWhereItIs() {
    // The load job itself: cancelled at its first report, it returns "cancelled" without reading
    // further (no report past the reading's share of the bar: the analysis never ran).
    std::atomic<bool> cancel{false};
    int last = -1, after_cancel = 0;
    Progress progress(
        [&](int permille) {
          if (cancel) ++after_cancel;
          last = permille;
          cancel = true;
        },
        &cancel);
    auto report = loadTraceReport(snapshot_.toStdString(), progress);
    QVERIFY(!report.ok());
    QVERIFY2(QString::fromStdString(report.error().message).endsWith(QLatin1String(": cancelled")),
             report.error().message.c_str());
    QVERIFY2(last < 850, qPrintable(QString::number(last)));
    QVERIFY2(after_cancel <= 1, qPrintable(QString::number(after_cancel)));

    // In the window: Cancel on the loading page, and a tab closed while it loads.
    MainWindow w(QString(), dir_.path());
    auto* tab = w.openFile(snapshot_);
    QCOMPARE(tab->state(), State::Loading);
    emit tab->cancelRequested();
    QCOMPARE(tab->state(), State::Cancelled);
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 30000);
    QCOMPARE(tab->state(), State::Cancelled);
    QVERIFY(!tab->report());
    auto* closed = w.openFile(snapshot_);
    QSignalSpy finished(w.jobs(), &JobRunner::jobFinished);
    w.tabs()->removeTab(w.tabs()->indexOf(closed));
    delete closed;
    QTRY_VERIFY_WITH_TIMEOUT(w.jobs()->isIdle(), 30000);
    QVERIFY(finished.count() >= 1);
    for (const auto& f : finished) QVERIFY(!f.at(2).toBool());  // nothing delivered to the closed tab
  }
};

QTEST_MAIN(SnapshotConversionTest)
#include "snapshot_conversion_test.moc"
