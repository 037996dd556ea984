// LiveFollower: following a file a recorder is writing, under the limit on the rows it holds.

#include <QTemporaryDir>
#include <QtTest>

#include "app/sawtooth/job_runner.h"
#include "app/sawtooth/live_follower.h"
#include "core/io/native_writer.h"
#include "core/io/trace_loader.h"

using namespace sawtooth;

namespace {
QString data(const char* name) { return QStringLiteral(SAWTOOTH_TEST_DATA "/") + QString::fromUtf8(name); }

// A recording in progress in a folder of its own (a recorder's writer holding it), and the trace
// its events come from.
struct Recording {
  QTemporaryDir dir;
  QString path;
  std::unique_ptr<NativeWriter> writer;
  Trace source;
};

// A recording in progress at `path` (a recorder's writer holding it): the anatomy snapshot's
// devices and its first 100 events committed.
void startRecording(const QString& path, std::unique_ptr<NativeWriter>& writer, Trace& source) {
  auto created = NativeWriter::create(path.toStdString(), OutputClaim::Existing::Refuse,
                                      NativeWriterOptions{.recording = true});
  QVERIFY(created.ok());
  writer = std::move(*created);
  auto loaded = loadTrace(data("anatomy_adam_snapshot.pickle").toStdString());
  QVERIFY(loaded.ok());
  source = std::move(*loaded);
  QVERIFY(writer->beginBatch());
  for (const DeviceInfo& d : source.devices) QVERIFY(writer->writeDevice(d));
  QVERIFY(writer->appendEventsAt(source.events, 0, 100, 0));
  QVERIFY(writer->commitBatch());
}

void startRecording(Recording& r, const char* name) {
  r.path = r.dir.filePath(QString::fromLatin1(name));
  startRecording(r.path, r.writer, r.source);
}

// The recording keeps its last `window` events from now on: the rows before them are deleted.
void keepWindow(Recording& r, size_t window) {
  QVERIFY(r.writer->beginBatch());
  QVERIFY(r.writer->setMeta("window.last_events", std::to_string(window)));
  QVERIFY(r.writer->deleteEventsBefore(100 - window));
  QVERIFY(r.writer->commitBatch());
}

// A round of a windowed recorder: the source's rows up to `end` appended, its window kept.
void recordUpTo(Recording& r, size_t end, size_t step, size_t window) {
  QVERIFY(r.writer->beginBatch());
  QVERIFY(r.writer->appendEventsAt(r.source.events, end - step, end, end - step));
  QVERIFY(r.writer->deleteEventsBefore(end - window));
  QVERIFY(r.writer->commitBatch());
}
}  // namespace

class LiveFollowerTest : public QObject {
  Q_OBJECT
 private slots:
  // The live tab lowers the limit to the rows held once the file's summaries draw the chart; a
  // poll that was reading at that moment must not add what it read past the new limit (CI saw
  // the live tab hold 100 rows after it had stopped at 0).
  void aLimitLoweredWhileAPollReadsHoldsForThatPoll() {
    Recording r;
    startRecording(r, "growing.sawtooth");
    if (QTest::currentTestFailed()) return;

    app::JobRunner jobs;
    app::LiveFollower follower(r.path, &jobs);
    follower.start(50);      // the first poll is on its way
    follower.setMaxEvents(0);  // and the limit drops before it lands
    QTRY_VERIFY_WITH_TIMEOUT(follower.refreshes() >= 1, 10000);
    QCOMPARE(follower.timeline().events(), uint64_t{0});
    QTRY_VERIFY_WITH_TIMEOUT(follower.capped(), 10000);

    QVERIFY(r.writer->beginBatch());
    QVERIFY(r.writer->appendEventsAt(r.source.events, 100, r.source.events.size(), 100));
    QVERIFY(r.writer->commitBatch());
    const int seen = follower.refreshes();
    QTRY_VERIFY_WITH_TIMEOUT(follower.refreshes() >= seen + 2, 10000);
    QCOMPARE(follower.timeline().events(), uint64_t{0});
  }

  // A limit set before the first poll: the timeline takes that many rows and stops.
  void aLimitSetBeforeTheFirstPollHoldsThatManyRows() {
    Recording r;
    startRecording(r, "growing.sawtooth");
    if (QTest::currentTestFailed()) return;

    app::JobRunner jobs;
    app::LiveFollower follower(r.path, &jobs);
    follower.setMaxEvents(60);
    follower.start(50);
    QTRY_VERIFY_WITH_TIMEOUT(follower.capped(), 10000);
    QCOMPARE(follower.timeline().events(), uint64_t{60});
  }

  // A recording that keeps only its last N events (--window-events) deletes the rows before its
  // window as it goes and has no summaries until it ends: the live timeline, full, reads it again
  // from the window's start instead of stopping (the 20 M-event limit stopped a day's run).
  void aWindowedRecordingIsReadAgainFromItsWindowWhenFull() {
    Recording r;
    startRecording(r, "windowed.sawtooth");
    if (QTest::currentTestFailed()) return;
    QVERIFY(r.source.events.size() >= 300);
    constexpr size_t kWindow = 10, kStep = 20, kLimit = 40;
    keepWindow(r, kWindow);

    app::JobRunner jobs;
    app::LiveFollower follower(r.path, &jobs);
    follower.setMaxEvents(kLimit);
    int restarts = 0;
    connect(&follower, &app::LiveFollower::restartedAtTheWindow, this, [&restarts](quint64 events) {
      QCOMPARE(events, quint64{kWindow});
      ++restarts;
    });
    follower.start(20);
    QTRY_COMPARE_WITH_TIMEOUT(follower.timeline().events(), uint64_t{kWindow}, 10000);
    // The recorder goes on: kStep rows a round, the window kept.
    for (size_t end = 100 + kStep; end <= 300 && follower.windowRestarts() < 2; end += kStep) {
      recordUpTo(r, end, kStep, kWindow);
      const int seen = follower.refreshes();
      QTRY_VERIFY_WITH_TIMEOUT(follower.refreshes() >= seen + 2, 10000);
      QVERIFY(!follower.capped());
      QVERIFY(follower.timeline().events() <= kLimit);
    }
    QCOMPARE(follower.windowRestarts(), 2);
    QCOMPARE(restarts, 2);
    // Caught up after the last restart: the window itself.
    QTRY_COMPARE_WITH_TIMEOUT(follower.timeline().events(), uint64_t{kWindow}, 10000);
  }

  // A distributed run's ranks, each keeping its last events: read again together from their
  // windows when the timeline is full (they stopped at the limit before).
  void severalWindowedFilesAreReadAgainFromTheirWindowsWhenFull() {
    Recording a, b;
    startRecording(a, "rank0.sawtooth");
    startRecording(b, "rank1.sawtooth");
    if (QTest::currentTestFailed()) return;
    constexpr size_t kWindow = 10, kStep = 20, kLimit = 60;
    for (Recording* r : {&a, &b}) keepWindow(*r, kWindow);
    app::JobRunner jobs;
    app::LiveFollower follower(a.path, &jobs);
    follower.addFile(b.path, QStringLiteral("rank 1"));
    follower.setMaxEvents(kLimit);
    follower.start(20);
    QTRY_COMPARE_WITH_TIMEOUT(follower.timeline().events(), uint64_t{2 * kWindow}, 10000);
    for (size_t end = 100 + kStep; end <= 300 && follower.windowRestarts() < 2; end += kStep) {
      for (Recording* r : {&a, &b}) recordUpTo(*r, end, kStep, kWindow);
      const int seen = follower.refreshes();
      QTRY_VERIFY_WITH_TIMEOUT(follower.refreshes() >= seen + 2, 10000);
      QVERIFY(!follower.capped());
      QVERIFY(follower.timeline().events() <= kLimit);
    }
    QCOMPARE(follower.windowRestarts(), 2);
    // Caught up after the last restart: the two windows.
    QTRY_COMPARE_WITH_TIMEOUT(follower.timeline().events(), uint64_t{2 * kWindow}, 10000);
    QVERIFY(!follower.capped());
  }

  // The recorder cut its window past the rows the follower had read (the app was busy): rows it
  // never read are gone and others stand in their seqs. Read on, the timeline would hold rows the
  // file no longer has and miss the ones deleted unread; it is read again from the window instead.
  void aFollowerBehindTheWindowsCutReadsItAgainFromTheWindow() {
    Recording r;
    startRecording(r, "windowed.sawtooth");
    if (QTest::currentTestFailed()) return;
    QVERIFY(r.source.events.size() >= 300);
    constexpr size_t kWindow = 10;
    QVERIFY(r.writer->beginBatch());
    QVERIFY(r.writer->setMeta("window.last_events", std::to_string(kWindow)));
    QVERIFY(r.writer->deleteEventsBefore(100 - kWindow));
    QVERIFY(r.writer->setMeta("window.first_kept_seq", std::to_string(100 - kWindow)));
    QVERIFY(r.writer->commitBatch());

    app::JobRunner jobs;
    app::LiveFollower follower(r.path, &jobs);
    follower.start(20);
    QTRY_COMPARE_WITH_TIMEOUT(follower.timeline().events(), uint64_t{kWindow}, 10000);
    QCOMPARE(follower.windowRestarts(), 0);
    // One batch: 100 rows more and the window cut at 290, past everything read (up to 99).
    QVERIFY(r.writer->beginBatch());
    QVERIFY(r.writer->appendEventsAt(r.source.events, 100, 300, 100));
    QVERIFY(r.writer->deleteEventsBefore(300 - kWindow));
    QVERIFY(r.writer->setMeta("window.first_kept_seq", std::to_string(300 - kWindow)));
    QVERIFY(r.writer->commitBatch());
    QTRY_COMPARE_WITH_TIMEOUT(follower.windowRestarts(), 1, 10000);
    // The window itself, not the 10 rows before it as well.
    QTRY_COMPARE_WITH_TIMEOUT(follower.timeline().events(), uint64_t{kWindow}, 10000);
    const int seen = follower.refreshes();
    QTRY_VERIFY_WITH_TIMEOUT(follower.refreshes() >= seen + 3, 10000);
    QCOMPARE(follower.timeline().events(), uint64_t{kWindow});
    QCOMPARE(follower.windowRestarts(), 1);
    QVERIFY(!follower.capped());
  }

  // A window larger than half the limit: the limit is raised to twice the window while that fits
  // the ceiling the app gives (the memory a file read whole may take), and the window is followed.
  void aLargerWindowRaisesTheLimitUpToTheCeiling() {
    Recording r;
    startRecording(r, "windowed.sawtooth");
    if (QTest::currentTestFailed()) return;
    constexpr size_t kWindow = 30, kStep = 40;
    keepWindow(r, kWindow);
    app::JobRunner jobs;
    app::LiveFollower follower(r.path, &jobs);
    follower.setMaxEvents(40);
    follower.setWindowedCeiling(100);
    follower.start(20);
    QTRY_COMPARE_WITH_TIMEOUT(follower.timeline().events(), uint64_t{kWindow}, 10000);
    for (size_t end = 100 + kStep; end <= 300 && follower.windowRestarts() < 1; end += kStep) {
      recordUpTo(r, end, kStep, kWindow);
      const int seen = follower.refreshes();
      QTRY_VERIFY_WITH_TIMEOUT(follower.refreshes() >= seen + 2, 10000);
      QVERIFY(!follower.capped());
    }
    QCOMPARE(follower.windowRestarts(), 1);
    QCOMPARE(follower.maxEvents(), uint64_t{2 * kWindow});
    QTRY_COMPARE_WITH_TIMEOUT(follower.timeline().events(), uint64_t{kWindow}, 10000);
  }

  // A window larger than half the ceiling could not be held: the timeline stops at the limit.
  void aWindowTooLargeForTheCeilingStops() {
    Recording r;
    startRecording(r, "windowed.sawtooth");
    if (QTest::currentTestFailed()) return;
    QVERIFY(r.writer->beginBatch());
    QVERIFY(r.writer->setMeta("window.last_events", "80"));
    QVERIFY(r.writer->commitBatch());
    app::JobRunner jobs;
    app::LiveFollower follower(r.path, &jobs);
    follower.setMaxEvents(60);
    follower.setWindowedCeiling(100);
    follower.start(20);
    QTRY_VERIFY_WITH_TIMEOUT(follower.capped(), 10000);
    QCOMPARE(follower.timeline().events(), uint64_t{60});
    QCOMPARE(follower.windowRestarts(), 0);
  }
};

QTEST_MAIN(LiveFollowerTest)
#include "live_follower_test.moc"
