#include <QAbstractItemModelTester>
#include <QtTest>

#include "views/events_table_model.h"
#include "views/trace_load_job.h"

using namespace sawtooth;
using namespace sawtooth::views;

class EventsTableModelTest : public QObject {
  Q_OBJECT
  std::shared_ptr<const TraceAnalysis> analysis_;

 private slots:
  void initTestCase() {
    auto result = TraceLoadJob::loadNow(QStringLiteral(SAWTOOTH_TEST_DATA "/anatomy_adam_snapshot.pickle"));
    QVERIFY2(result.analysis, qPrintable(result.error));
    analysis_ = result.analysis;
  }

  void passesTheModelTester() {
    EventsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(analysis_);
    QCOMPARE(model.rowCount(), 352);
    QVERIFY(model.setFilter(QStringLiteral("alloc")));
    model.sort(EventsTableModel::Size, Qt::DescendingOrder);
    QVERIFY(model.setFilter(QString()));
  }

  void filtersByWordsSizesAndPhases() {
    EventsTableModel model;
    model.setAnalysis(analysis_);
    QVERIFY(model.setFilter(QStringLiteral("segment_alloc")));
    QCOMPARE(model.rowCount(), 1);
    // size>=16MB, counted by brute force over the store.
    const auto& ev = analysis_->trace().events;
    int big = 0;
    for (size_t i = 0; i < ev.size(); ++i) big += ev.sizes()[i] >= 16000000;
    QVERIFY(model.setFilter(QStringLiteral("size>=16MB")));
    QCOMPARE(model.rowCount(), big);
    QVERIFY(model.setFilter(QStringLiteral("free_completed size>=16MB")));
    QVERIFY(model.rowCount() < big);
    // A phase name matches the events inside it.
    QVERIFY(model.setFilter(QStringLiteral("optimizer.step")));
    QVERIFY(model.rowCount() > 0);
    for (int r = 0; r < model.rowCount(); ++r)
      QCOMPARE(model.index(r, EventsTableModel::Phase).data().toString(), QStringLiteral("Optimizer.step#Adam.step"));
    // A frame in a Python file matches too.
    QVERIFY(model.setFilter(QStringLiteral("linear.py")));
    QVERIFY(model.rowCount() > 0);
  }

  void rejectsBadSizesAndKeepsTheRows() {
    EventsTableModel model;
    model.setAnalysis(analysis_);
    QVERIFY(model.setFilter(QStringLiteral("alloc")));
    const int rows = model.rowCount();
    QVERIFY(!model.setFilter(QStringLiteral("size>=lots")));
    QVERIFY(model.filterError().contains(QStringLiteral("lots")));
    QCOMPARE(model.rowCount(), rows);
  }

  void sortsBySizeAndKeepsTheSortWhenFiltering() {
    EventsTableModel model;
    model.setAnalysis(analysis_);
    model.sort(EventsTableModel::Size, Qt::DescendingOrder);
    const auto& ev = analysis_->trace().events;
    const int64_t biggest = *std::max_element(ev.sizes().begin(), ev.sizes().end());
    QCOMPARE(ev.sizes()[static_cast<size_t>(model.eventAt(0))], biggest);
    QVERIFY(model.setFilter(QStringLiteral("free_completed")));
    for (int r = 1; r < model.rowCount(); ++r)
      QVERIFY(ev.sizes()[static_cast<size_t>(model.eventAt(r - 1))] >= ev.sizes()[static_cast<size_t>(model.eventAt(r))]);
  }

  void parsesSizes() {
    qint64 b = 0;
    QVERIFY(EventsTableModel::parseBytes(QStringLiteral("1.5MB"), b));
    QCOMPARE(b, 1500000);
    QVERIFY(EventsTableModel::parseBytes(QStringLiteral("2 GiB"), b));
    QCOMPARE(b, 2147483648);
    QVERIFY(EventsTableModel::parseBytes(QStringLiteral("4096"), b));
    QCOMPARE(b, 4096);
    QVERIFY(!EventsTableModel::parseBytes(QStringLiteral("MB"), b));
  }
};

QTEST_MAIN(EventsTableModelTest)
#include "events_table_model_test.moc"
