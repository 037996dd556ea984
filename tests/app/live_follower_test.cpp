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
}  // namespace

class LiveFollowerTest : public QObject {
  Q_OBJECT
 private slots:
  // The live tab lowers the limit to the rows held once the file's summaries draw the chart; a
  // poll that was reading at that moment must not add what it read past the new limit (CI saw
  // the live tab hold 100 rows after it had stopped at 0).
  void aLimitLoweredWhileAPollReadsHoldsForThatPoll() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("growing.sawtooth"));
    std::unique_ptr<NativeWriter> writer;
    Trace source;
    startRecording(path, writer, source);
    if (QTest::currentTestFailed()) return;

    app::JobRunner jobs;
    app::LiveFollower follower(path, &jobs);
    follower.start(50);      // the first poll is on its way
    follower.setMaxEvents(0);  // and the limit drops before it lands
    QTRY_VERIFY_WITH_TIMEOUT(follower.refreshes() >= 1, 10000);
    QCOMPARE(follower.timeline().events(), uint64_t{0});
    QTRY_VERIFY_WITH_TIMEOUT(follower.capped(), 10000);

    QVERIFY(writer->beginBatch());
    QVERIFY(writer->appendEventsAt(source.events, 100, source.events.size(), 100));
    QVERIFY(writer->commitBatch());
    const int seen = follower.refreshes();
    QTRY_VERIFY_WITH_TIMEOUT(follower.refreshes() >= seen + 2, 10000);
    QCOMPARE(follower.timeline().events(), uint64_t{0});
  }

  // A limit set before the first poll: the timeline takes that many rows and stops.
  void aLimitSetBeforeTheFirstPollHoldsThatManyRows() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("growing.sawtooth"));
    std::unique_ptr<NativeWriter> writer;
    Trace source;
    startRecording(path, writer, source);
    if (QTest::currentTestFailed()) return;

    app::JobRunner jobs;
    app::LiveFollower follower(path, &jobs);
    follower.setMaxEvents(60);
    follower.start(50);
    QTRY_VERIFY_WITH_TIMEOUT(follower.capped(), 10000);
    QCOMPARE(follower.timeline().events(), uint64_t{60});
  }
};

QTEST_MAIN(LiveFollowerTest)
#include "live_follower_test.moc"
