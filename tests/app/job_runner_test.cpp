// The app's job runner: results on the GUI thread, a newer job in a slot supersedes the older,
// cancel and a context's death drop results, errors and exceptions arrive as messages.

#include <QSignalSpy>
#include <QThread>
#include <QtTest>
#include <atomic>

#include "app/sawtooth/job_runner.h"

using namespace sawtooth;
using sawtooth::app::JobRunner;

class JobRunnerTest : public QObject {
  Q_OBJECT

  static bool waitIdle(JobRunner& jobs) { return QTest::qWaitFor([&] { return jobs.isIdle(); }, 10000); }

 private slots:
  void deliversOnTheGuiThreadWithProgress() {
    JobRunner jobs;
    QObject context;
    QThread* worker_thread = nullptr;
    int result = 0, last_progress = -1;
    QSignalSpy finished(&jobs, &JobRunner::jobFinished);
    jobs.run<int>(
        QStringLiteral("a"), QStringLiteral("answer"), &context,
        [&](Progress& p) -> Result<int> {
          worker_thread = QThread::currentThread();
          for (int i = 1; i <= 10; ++i) p.report(i, 10);
          return 42;
        },
        [&](int r) {
          QCOMPARE(QThread::currentThread(), qApp->thread());
          result = r;
        },
        {}, [&](int permille) { last_progress = permille; });
    QVERIFY(!jobs.isIdle());
    QVERIFY(waitIdle(jobs));
    QCOMPARE(result, 42);
    QCOMPARE(last_progress, 1000);
    QVERIFY(worker_thread != qApp->thread());
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().at(2).toBool(), true);
  }

  void aNewerJobSupersedesTheOlder() {
    JobRunner jobs;
    QObject context;
    std::atomic<bool> release{false};
    std::atomic<bool> older_saw_cancel{false};
    QStringList delivered;
    jobs.run<QString>(
        QStringLiteral("filter"), QString(), &context,
        [&](Progress& p) -> Result<QString> {
          while (!release) QThread::msleep(1);
          older_saw_cancel = p.cancelled();
          return QStringLiteral("old");
        },
        [&](QString r) { delivered << r; });
    jobs.run<QString>(
        QStringLiteral("filter"), QString(), &context, [](Progress&) -> Result<QString> { return QStringLiteral("new"); },
        [&](QString r) { delivered << r; });
    QVERIFY(jobs.isRunning(QStringLiteral("filter")));
    release = true;
    QVERIFY(waitIdle(jobs));
    QCOMPARE(delivered, QStringList{QStringLiteral("new")});
    QVERIFY(older_saw_cancel);
    QVERIFY(!jobs.isRunning(QStringLiteral("filter")));
  }

  void cancelAndAContextsDeathDropTheResult() {
    JobRunner jobs;
    bool delivered = false;
    auto context = std::make_unique<QObject>();
    std::atomic<bool> release{false};
    jobs.run<int>(
        QStringLiteral("load"), QString(), context.get(),
        [&](Progress&) -> Result<int> {
          while (!release) QThread::msleep(1);
          return 1;
        },
        [&](int) { delivered = true; });
    context.reset();  // the tab closed while it loaded
    release = true;
    QVERIFY(waitIdle(jobs));
    QVERIFY(!delivered);

    QObject alive;
    release = false;
    jobs.run<int>(
        QStringLiteral("load"), QString(), &alive,
        [&](Progress&) -> Result<int> {
          while (!release) QThread::msleep(1);
          return 1;
        },
        [&](int) { delivered = true; });
    QVERIFY(jobs.cancel(QStringLiteral("load")));
    QVERIFY(!jobs.cancel(QStringLiteral("load")));
    release = true;
    QVERIFY(waitIdle(jobs));
    QVERIFY(!delivered);
  }

  void errorsAndExceptionsArriveAsMessages() {
    JobRunner jobs;
    QObject context;
    QStringList errors;
    jobs.run<int>(
        QString(), QString(), &context, [](Progress&) -> Result<int> { return Error{"rank 3: no such file"}; },
        [](int) { QFAIL("no result expected"); }, [&](const QString& e) { errors << e; });
    jobs.run<int>(
        QString(), QString(), &context, [](Progress&) -> Result<int> { throw std::runtime_error("out of memory"); },
        [](int) { QFAIL("no result expected"); }, [&](const QString& e) { errors << e; });
    QVERIFY(waitIdle(jobs));
    errors.sort();
    QCOMPARE(errors, (QStringList{QStringLiteral("out of memory"), QStringLiteral("rank 3: no such file")}));
  }

  void unnamedJobsRunSideBySide() {
    JobRunner jobs;
    QObject context;
    std::atomic<int> done{0};
    int delivered = 0;
    for (int i = 0; i < 5; ++i)
      jobs.run<int>(
          QString(), QString(), &context, [&](Progress&) -> Result<int> { return ++done; }, [&](int) { ++delivered; });
    QVERIFY(waitIdle(jobs));
    QCOMPARE(delivered, 5);
  }

  void destroyingTheRunnerWaitsForItsWorkers() {
    std::atomic<bool> ran{false};
    {
      JobRunner jobs;
      jobs.run<int>(
          QString(), QString(), nullptr,
          [&](Progress& p) -> Result<int> {
            while (!p.cancelled()) QThread::msleep(1);
            ran = true;
            return 0;
          },
          [](int) {});
    }
    QVERIFY(ran);
  }
};

QTEST_MAIN(JobRunnerTest)
#include "job_runner_test.moc"
