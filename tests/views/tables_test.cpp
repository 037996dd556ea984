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

  // A precision run with three timed steps per mode, as the workloads record them.
  static Trace precisionRun(std::vector<std::pair<const char*, std::vector<double>>> modes, const char* device_kind) {
    Trace t;
    t.meta["workload"] = "precision";
    t.meta["device_kind"] = device_kind;
    for (auto& [mode, samples] : modes) {
      Run r{mode, "precision", {{"mode", mode}}, {{"step_time_median_ms", samples[1], "ms"},
                                                 {"step_time_min_ms", samples[0], "ms"},
                                                 {"step_time_max_ms", samples[2], "ms"},
                                                 {"achieved_tflops", 0.012, "TFLOP/s"}}};
      for (double ms : samples) r.measurements.push_back({"step_time_sample_ms", ms, "ms"});
      t.runs.push_back(std::move(r));
    }
    return t;
  }

  void precisionReadsSlowerAndKeepsItsDigits() {
    PrecisionView view;
    QAbstractItemModelTester tester(view.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    // bf16 ten times slower than TF32, a tenth of a TFLOP/s (a GPU's run: TF32 is real there).
    const auto report = buildTraceReport(test::analyse(
        precisionRun({{"fp32", {9.8, 10, 10.2}}, {"tf32", {9.9, 10, 10.1}}, {"bf16", {99, 100, 101}}}, "cuda")));
    QVERIFY(view.setReport(*report));
    constexpr int kAgainstTf32 = 6, kThroughput = 7;
    QCOMPARE(view.tableModel()->index(2, kAgainstTf32).data().toString(), QStringLiteral("10× slower"));
    QCOMPARE(view.tableModel()->index(2, kThroughput).data().toString(), QStringLiteral("12.0 GFLOP/s"));
    QVERIFY2(view.chart()->annotations()[2].contains(QStringLiteral("10× slower than TF32")), qPrintable(view.chart()->annotations()[2]));
    QVERIFY(!view.chart()->annotations()[2].contains(QStringLiteral("×0.")));
    QVERIFY(view.chart()->categories()[2].contains(QStringLiteral("GFLOP/s")));
  }

  void noiseAndTf32OnACpuAreNotSpeedups() {
    // A loaded 2-core CPU: TF32 "1.9× slower than fp32" (TF32 does nothing on a CPU), bf16 within
    // the spread of fp32.
    const auto report = buildTraceReport(test::analyse(
        precisionRun({{"fp32", {8, 10, 13}}, {"tf32", {17, 19, 24}}, {"bf16", {9, 11, 15}}}, "cpu")));
    PrecisionView view;
    QVERIFY(view.setReport(*report));
    const QStringList labels = view.chart()->annotations();
    QVERIFY2(labels[1].contains(QStringLiteral("no TF32 on a CPU")), qPrintable(labels[1]));
    QVERIFY2(!labels[1].contains(QStringLiteral("slower")), qPrintable(labels[1]));
    QVERIFY2(labels[2].contains(QStringLiteral("within noise")), qPrintable(labels[2]));
    QVERIFY2(!labels[2].contains(QStringLiteral("faster")) && !labels[2].contains(QStringLiteral("slower")), qPrintable(labels[2]));
    constexpr int kAgainstFp32 = 5, kNote = 9;
    QVERIFY(view.tableModel()->index(1, kAgainstFp32).data().toString().isEmpty());
    QVERIFY(view.tableModel()->index(1, kNote).data().toString().contains(QStringLiteral("NVIDIA GPU format")));
    QVERIFY(view.tableModel()->index(2, kNote).data().toString().contains(QStringLiteral("within noise")));

    // Checkpointing on the same CPU: the time change is noise, and the bar's label says so.
    Trace c;
    c.meta["workload"] = "checkpointing";
    for (auto [name, samples] : {std::pair{"store_all", std::vector<double>{4.1, 6.0, 9.5}},
                                 std::pair{"every_block", std::vector<double>{3.2, 5.1, 8.8}}}) {
      Run r{name, "checkpointing", {}, {{"peak_allocated_bytes", std::string(name) == "store_all" ? 2e6 : 1.6e6, "bytes"},
                                        {"fwd_bwd_median_ms", samples[1], "ms"}, {"fwd_bwd_min_ms", samples[0], "ms"},
                                        {"fwd_bwd_max_ms", samples[2], "ms"}}};
      for (double ms : samples) r.measurements.push_back({"fwd_bwd_sample_ms", ms, "ms"});
      c.runs.push_back(std::move(r));
    }
    const auto ckpt = buildTraceReport(test::analyse(std::move(c)));
    BarChart chart;
    QVERIFY(showPeakComparison(chart, ckpt->peak_groups, ckpt->workload));
    QVERIFY2(chart.annotations()[1].contains(QStringLiteral("−20 % peak · time within noise")), qPrintable(chart.annotations()[1]));
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
    // Measured beside predicted, with the error (columns found by their headers: the table grows).
    auto column = [&](const QString& header) {
      for (int c = 0; c < view.programTable()->columnCount(); ++c)
        if (view.programTable()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == header) return c;
      return -1;
    };
    const int measured = column(QStringLiteral("measured peak"));
    const int error = column(QStringLiteral("peak error"));
    QVERIFY(measured > 0 && error > 0);
    QVERIFY(!view.programTable()->index(row, measured).data().toString().isEmpty());
    QVERIFY(view.programTable()->index(row, error).data().toString().contains(QLatin1Char('%')));
    view.selectRow(row);
    QVERIFY(view.programText().contains(QStringLiteral("reentrant: the whole block")));
    QVERIFY(view.programText().contains(QStringLiteral("Peak error")));
    QVERIFY(view.programText().contains(QStringLiteral("Diagnosis: compute-bound")));
    // Another device size asks the app for a new report.
    view.setDeviceMemory(int64_t{24} * 1000 * 1000 * 1000);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(1).toLongLong(), qint64{24} * 1000 * 1000 * 1000);
    QCOMPARE(requested.at(0).at(2).toInt(), 0);  // the run's devices, or 2
    QCOMPARE(requested.at(0).at(3).toDouble(), 0.0);  // the link from the device's name
    // So do another device count for the sharding rungs and another link between the devices.
    view.setShardDevices(8);
    QCOMPARE(requested.count(), 2);
    QCOMPARE(requested.at(1).at(2).toInt(), 8);
    view.setLinkBandwidth(50);
    QCOMPARE(requested.count(), 3);
    QCOMPARE(requested.at(2).at(3).toDouble(), 50.0);
    QCOMPARE(requested.at(2).at(1).toLongLong(), qint64{24} * 1000 * 1000 * 1000);
    view.setShardDevices(0);
    QCOMPARE(view.shardDevices(), 0);
    view.setReportError(QStringLiteral("run 'x' has no allocator events"));
    QVERIFY(view.programText().contains(QStringLiteral("no allocator events")));
  }
};

QTEST_MAIN(TablesTest)
#include "tables_test.moc"
