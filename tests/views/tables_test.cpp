// The tables the views show (core tables through one model) and the views that hold them.

#include <QAbstractItemModelTester>
#include <QtTest>

#include <QValueAxis>

#include "tests/views/view_test_data.h"
#include "views/experiment_charts.h"
#include "core/analysis/ladder_measured.h"
#include "views/ladder_view.h"
#include "views/oom_view.h"
#include "views/precision_view.h"
#include "views/runs_view.h"
#include "views/table_model.h"

using namespace sawtooth;
using namespace sawtooth::views;

class TablesTest : public QObject {
  Q_OBJECT

 private slots:
  void theTableModelPassesTheTester() {
    TableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto table = std::make_shared<Table>();
    table->columns = {{"what", Unit::Text}, {"size", Unit::Bytes}, {"t", Unit::Nanoseconds}, {"skipped", Unit::Number, "steps"}};
    table->rows = {{"a", 572522496.0, 474820.0, 3.0}, {"b", Cell(), 1.0, Cell()}};
    model.setTable(table);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, 1).data().toString(), QStringLiteral("572.5 MB"));
    QCOMPARE(model.index(0, 1).data(TableModel::RawRole).toDouble(), 572522496.0);
    QCOMPARE(model.index(0, 1).data(Qt::ToolTipRole).toString(), QStringLiteral("572522496 bytes"));
    QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("474.82 µs"));
    QCOMPARE(model.index(0, 3).data().toString(), QStringLiteral("3 steps"));
    QVERIFY(model.index(1, 1).data().toString().isEmpty());
    QCOMPARE(model.headerData(1, Qt::Horizontal, Qt::ToolTipRole).toString(), QStringLiteral("size (bytes)"));
    model.setTable(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void runsSortByValue() {
    RunsView view;
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto report = test::sample("checkpointing.sawtooth");
    view.setTable(std::make_shared<const Table>(report->runs));
    QCOMPARE(view.model()->rowCount(), 4);
    int peak = -1;
    for (int c = 0; c < view.model()->columnCount(); ++c)
      if (view.model()->headerData(c, Qt::Horizontal).toString() == QLatin1String("peak allocated bytes")) peak = c;
    QVERIFY(peak >= 0);
    view.sortByColumn(peak, Qt::AscendingOrder);
    // By bytes, not by the text ("1.6 GB" before "3.6 GB", whatever the digits).
    for (int r = 1; r < 4; ++r)
      QVERIFY(view.model()->index(r - 1, peak).data(TableModel::RawRole).toDouble() <=
              view.model()->index(r, peak).data(TableModel::RawRole).toDouble());
  }

  void precisionReadsSlowerAndKeepsItsDigits() {
    PrecisionView view;
    QAbstractItemModelTester tester(view.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    // A CPU's precision run: bf16 ten times slower than TF32, a tenth of a TFLOP/s.
    Trace t;
    t.meta["workload"] = "precision";
    for (auto [mode, ms] : {std::pair{"fp32", 10.0}, {"tf32", 10.0}, {"bf16", 100.0}})
      t.runs.push_back(Run{mode, "precision", {{"mode", mode}}, {{"step_time_median_ms", ms, "ms"}, {"achieved_tflops", 0.012, "TFLOP/s"}}});
    const auto report = buildTraceReport(test::analyse(std::move(t)));
    QVERIFY(view.setReport(*report));
    QCOMPARE(view.tableModel()->index(2, 5).data().toString(), QStringLiteral("10× slower"));
    QCOMPARE(view.tableModel()->index(2, 6).data().toString(), QStringLiteral("12.0 GFLOP/s"));
    QVERIFY2(view.chart()->annotations()[2].contains(QStringLiteral("10× slower than TF32")), qPrintable(view.chart()->annotations()[2]));
    QVERIFY(!view.chart()->annotations()[2].contains(QStringLiteral("×0.")));
    QVERIFY(view.chart()->categories()[2].contains(QStringLiteral("GFLOP/s")));
  }

  void barChartsChooseTheirUnitFromTheRange() {
    // The H200 checkpointing peaks are 1.7 to 3.9 GB: the axis reads GB, as the header does.
    auto report = test::sample("checkpointing.sawtooth");
    BarChart chart;
    QVERIFY(showPeakComparison(chart, report->peak_groups, report->workload));
    const auto axes = chart.chart()->axes(Qt::Vertical);
    QCOMPARE(axes.size(), 1);
    QCOMPARE(axes[0]->titleText(), QStringLiteral("peak (GB)"));
    QCOMPARE(chart.barSet(0)->at(0), report->peak_groups[0].peak_allocated / 1e9);
  }

  void precisionLabelsTakeOneLineEach() {
    auto report = test::sample("precision.sawtooth");
    PrecisionView view;
    QVERIFY(view.setReport(*report));
    // "9.1× faster than fp32" over "1.7× faster than TF32": side by side they ran into the next bar's.
    QCOMPARE(view.chart()->annotations()[2].count(QLatin1Char('\n')), 1);
  }

  void theOutOfMemoryPostMortem() {
    OomView view;
    QAbstractItemModelTester tester(view.blocksModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(view.setReport(*test::fixture("oom_mlp_snapshot_protocol2.pickle.gz")));
    QCOMPARE(view.blocksModel()->rowCount(), 8);
    QVERIFY2(view.headline().contains(QStringLiteral("asked for <b>67.1 MB</b>")), qPrintable(view.headline()));
    QCOMPARE(view.timeline()->oomMarkers(), 1);
    QVERIFY(!view.setReport(*test::fixture("anatomy_adam_snapshot.pickle")));
  }

  void theLadderShowsTheRungsItIsGiven() {
    LadderView view;
    QVERIFY(view.rungs().empty());
    view.setRungs(ladder({}));
    QVERIFY(view.text().contains(QStringLiteral("not measured yet: run the precision workload")));
  }

  void theLadderShowsARecordingsPredictionsAndWhy() {
    LadderView view;
    QSignalSpy requested(&view, &LadderView::programLadderRequested);
    view.setSources({QStringLiteral("checkpointing.sawtooth"), QStringLiteral("other.sawtooth")});
    QCOMPARE(requested.count(), 0);  // the app computes the first report itself
    QVERIFY(view.programText().contains(QStringLiteral("Predicting")));
    auto trace = loadTrace(SAWTOOTH_SAMPLES "/checkpointing.sawtooth");
    QVERIFY(trace.ok());
    auto input = ladderInput(*trace);
    QVERIFY(input.ok());
    LadderReport report = predictLadder(*input);
    attachMeasured(report, measuredRungs(*input, *trace, "checkpointing.sawtooth", true));
    const auto shared = std::make_shared<const LadderReport>(report);
    view.setReport(shared);
    QCOMPARE(view.programTable()->rowCount(), static_cast<int>(report.rows.size()));
    QCOMPARE(view.programTable()->index(0, 0).data().toString(), QStringLiteral("as recorded"));
    int row = -1;
    for (size_t i = 0; i < report.rows.size(); ++i)
      if (report.rows[i].id == "checkpoint:every=1:reentrant") row = static_cast<int>(i);
    QVERIFY(row > 0);
    // Measured beside predicted, with the error.
    QVERIFY(!view.programTable()->index(row, 2).data().toString().isEmpty());
    QVERIFY(view.programTable()->index(row, 3).data().toString().contains(QLatin1Char('%')));
    view.selectRow(row);
    QVERIFY(view.programText().contains(QStringLiteral("reentrant: the whole block")));
    QVERIFY(view.programText().contains(QStringLiteral("Peak error")));
    QVERIFY(view.programText().contains(QStringLiteral("Diagnosis: compute-bound")));
    // Another device size asks the app for a new report.
    view.setDeviceMemory(int64_t{24} * 1000 * 1000 * 1000);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(1).toLongLong(), qint64{24} * 1000 * 1000 * 1000);
    view.setReportError(QStringLiteral("run 'x' has no allocator events"));
    QVERIFY(view.programText().contains(QStringLiteral("no allocator events")));
  }
};

QTEST_MAIN(TablesTest)
#include "tables_test.moc"
