// The live chart, fed by hand as a recording would feed it: it follows the live edge until the
// user zooms away, keeps that zoom while the timeline grows, marks the edge, and never draws more
// than about two points per pixel column however many events arrived.

#include <QtTest>

#include "views/live_timeline_chart.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

// `steps` sawtooth steps of a 1 ms step loop from `first_step` on: 10 allocations of 1 MB, then
// their frees, on device 0.
std::vector<LiveRow> steps(int first_step, int count) {
  std::vector<LiveRow> rows;
  for (int s = first_step; s < first_step + count; ++s)
    for (int k = 0; k < 20; ++k)
      rows.push_back(LiveRow{int64_t{s} * 1'000'000 + k * 40'000, 0, Source::Allocator,
                             k < 10 ? Action::Alloc : Action::FreeCompleted, 1'000'000});
  return rows;
}

}  // namespace

class LiveTimelineChartTest : public QObject {
  Q_OBJECT

 private slots:
  void followsTheEdgeUntilZoomedAway() {
    LiveTimeline timeline;
    const LiveDevice device{0, "H200", 2'000'000'000, 2'100'000'000, "", std::nullopt};
    timeline.setDevices(std::span(&device, 1));
    LiveTimelineChart chart;
    chart.resize(900, 500);
    chart.setTimeline(&timeline);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QVERIFY(chart.edgeMarker()->points().isEmpty());  // nothing recorded yet

    auto rows = steps(0, 100);
    timeline.append(rows);
    chart.refresh();
    QVERIFY(chart.followsLiveEdge());
    QVERIFY(chart.line(0, SeriesKind::Allocated));
    QVERIFY(chart.line(0, SeriesKind::Reserved));
    QVERIFY(!chart.line(0, SeriesKind::DeviceUsed));  // not sampled
    const double edge1 = chart.liveEdge();
    QCOMPARE(chart.window().hi(), edge1);
    QCOMPARE(chart.window().lo(), 0.0);
    // The edge marker stands at the latest event, in seconds.
    QCOMPARE(chart.edgeMarker()->points().first().x(), edge1 / 1e9);
    // The baseline carries: allocated peaks at 2 GB + 10 MB.
    double most = 0;
    for (const QPointF& p : chart.line(0, SeriesKind::Allocated)->points()) most = std::max(most, p.y());
    QCOMPARE(most * chart.yUnit().bytes, 2'010'000'000.0);

    // More arrives: a following chart shows it all.
    rows = steps(100, 100);
    timeline.append(rows);
    chart.refresh();
    QVERIFY(chart.liveEdge() > edge1);
    QCOMPARE(chart.window().hi(), chart.liveEdge());

    // Zoomed to the first quarter: stays there while the recording grows.
    chart.zoomTo(0, chart.liveEdge() / 4);
    QVERIFY(!chart.followsLiveEdge());
    const double lo = chart.window().lo(), hi = chart.window().hi();
    rows = steps(200, 300);
    timeline.append(rows);
    chart.refresh();
    QCOMPARE(chart.window().lo(), lo);
    QCOMPARE(chart.window().hi(), hi);
    QVERIFY(chart.liveEdge() > hi * 4);

    // A zoomed window that reaches the edge slides with it, keeping its width.
    chart.followLiveEdge();
    chart.zoomTo(chart.liveEdge() - 50e6, chart.liveEdge());
    QVERIFY(chart.followsLiveEdge());
    rows = steps(500, 100);
    timeline.append(rows);
    chart.refresh();
    QCOMPARE(chart.window().hi(), chart.liveEdge());
    QVERIFY(qAbs(chart.window().width() - 50e6) < 1);

    // End: everything again.
    QTest::keyClick(&chart, Qt::Key_End);
    QVERIFY(chart.followsLiveEdge());
    QCOMPARE(chart.window().lo(), 0.0);
  }

  void drawsAboutTwoPointsPerColumnWhateverTheCount() {
    LiveTimeline timeline;
    LiveTimelineChart chart;
    chart.resize(800, 400);
    chart.setTimeline(&timeline);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    for (int chunk = 0; chunk < 10; ++chunk) {
      auto rows = steps(chunk * 5000, 5000);  // 100,000 events a chunk
      timeline.append(rows);
      chart.refresh();
    }
    QCOMPARE(timeline.events(), 1'000'000u);
    const int columns = static_cast<int>(chart.chart()->plotArea().width());
    QVERIFY(columns > 100);
    QVERIFY2(chart.pointsDrawn() <= 2 * 2 * (columns + 1), qPrintable(QString::number(chart.pointsDrawn())));
  }
};

QTEST_MAIN(LiveTimelineChartTest)
#include "live_timeline_chart_test.moc"
