// The comparison and the ranks views, given their results as the app's jobs hand them over.

#include <QSignalSpy>
#include <QtTest>

#include "core/model/trace_merge.h"
#include "tests/views/view_test_data.h"
#include "views/compare_view.h"
#include "views/ranks_view.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

RankTrace cpuRank(int rank, int64_t peak) {
  RankTrace r;
  r.rank = rank;
  r.trace.meta["t0_clock_ns"] = "1000";
  r.trace.runs.push_back(Run{"sharded", "data-parallel", {{"variant", "sharded"}, {"world_size", "2"}},
                             {{"plan_parameter_bytes", 400000, "bytes"}, {"plan_gradient_bytes", 400000, "bytes"},
                              {"plan_optimizer_state_bytes", 400000, "bytes"}}});
  for (int64_t i = 0; i < 40; ++i) {
    Event e;
    e.t_ns = 1000 * i;
    e.device = kCpuDevice;
    e.action = i % 2 ? Action::FreeCompleted : Action::Alloc;
    e.size = peak;
    e.run = 0;
    r.trace.events.push(e);
  }
  return r;
}

}  // namespace

class CompareRanksTest : public QObject {
  Q_OBJECT

 private slots:
  void comparisonLabelsDoNotOverlapAndTheChartGetsTheRoom() {
    auto a = test::sample("anatomy.sawtooth")->analysis;
    auto b = test::fixture("anatomy_adam_snapshot.pickle")->analysis;
    CompareView view;
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto c = compareTraces(*a, "anatomy.sawtooth", *b, "snapshot", Alignment::EventIndex);
    QVERIFY(c);
    view.setComparison(std::make_shared<const Comparison>(std::move(*c)));
    QCoreApplication::processEvents();
    QVERIFY(view.timeline()->line(0, SeriesKind::Allocated));
    QVERIFY(view.timeline()->line(kCompareOffset, SeriesKind::Allocated));
    // Both peaks are 572.5 MB at about the same place: their labels stacked, not drawn over each other.
    const QRectF la = view.timeline()->peakLabelRect(0), lb = view.timeline()->peakLabelRect(kCompareOffset);
    QVERIFY(!la.isEmpty() && !lb.isEmpty());
    QVERIFY2(!la.intersects(lb), qPrintable(QStringLiteral("%1,%2 vs %3,%4").arg(la.x()).arg(la.y()).arg(lb.x()).arg(lb.y())));
    // The table is as tall as its rows; the chart has the rest.
    QCOMPARE(view.differencesModel()->rowCount(), 2);
    QVERIFY2(view.timeline()->height() > 3 * view.differences()->height(),
             qPrintable(QStringLiteral("%1 vs %2").arg(view.timeline()->height()).arg(view.differences()->height())));
    // B (352 allocator events) ends where it ended, not as a flat line to the end of A's events.
    const QList<QPointF> line_a = view.timeline()->linePoints(0, SeriesKind::Allocated);
    const QList<QPointF> line_b = view.timeline()->linePoints(kCompareOffset, SeriesKind::Allocated);
    const double x1 = view.timeline()->window().hi(), column = x1 / view.timeline()->chart()->plotArea().width();
    QVERIFY(x1 > 2000);
    QVERIFY(line_a.back().x() > x1 - 2 * column);
    const double b_end = static_cast<double>(b->devices().front()->series.allocated.size() - 1);
    QVERIFY2(line_b.back().x() <= b_end + column,
             qPrintable(QStringLiteral("B drawn to %1, its last point at %2").arg(line_b.back().x()).arg(b_end)));
    // Alignment is asked for, not computed here.
    QSignalSpy spy(&view, &CompareView::alignmentChanged);
    view.setAlignment(Alignment::Step);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.first().at(0).value<Alignment>(), Alignment::Step);
    auto stepped = compareTraces(*a, "a", *a, "b", Alignment::Step);
    view.setComparison(std::make_shared<const Comparison>(std::move(*stepped)));
    QVERIFY(view.timeline()->xAxisByTime());
    QVERIFY(view.noteText().contains(QStringLiteral("aligned by step")));
  }

  void ranksLanesAreTitledAndTheirAxesReadable() {
    const std::vector<RankTrace> ranks = {cpuRank(0, 5'300'000), cpuRank(1, 5'300'000)};
    auto merged = mergeRankTraces(ranks);
    QVERIFY(merged);
    const auto report = buildTraceReport(test::analyse(std::move(*merged)));
    RanksView view;
    view.resize(1400, 900);
    view.show();
    view.setComparison(*report->ranks);
    QCOMPARE(view.peaks()->categories().size(), 2);
    QCOMPARE(view.peaks()->referenceLines().size(), 2);
    QVERIFY(view.peaks()->referenceLines()[1].contains(QStringLiteral("8P/2")));
    QCOMPARE(view.imbalance(), 1.0);
    QVERIFY(view.lanes().empty());  // until their analyses arrive
    auto lanes = rankLanes(report->analysis->trace());
    QVERIFY(lanes);
    view.setLanes(*lanes);
    QCOMPARE(static_cast<int>(view.lanes().size()), 2);
    QCoreApplication::processEvents();
    for (TimelineChart* lane : view.lanes()) {
      // The lane's y axis is titled with its unit alone: "memory (MB)" was cut to "memory (…".
      QCOMPARE(lane->yTitle(), QStringLiteral("MB"));
      QCOMPARE(lane->peakPoint(kCpuDevice).y(), 5'300'000.0);
    }
    QCOMPARE(view.lanes()[0]->window().lo(), view.lanes()[1]->window().lo());
    view.lanes()[0]->zoomAround(view.lanes()[0]->window().lo(), 0.5);
    QCOMPARE(view.lanes()[1]->window().hi(), view.lanes()[0]->window().hi());
  }
};

QTEST_MAIN(CompareRanksTest)
#include "compare_ranks_test.moc"
