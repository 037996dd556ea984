// A recording's timeline while it runs, drawn by the one timeline chart (a finished trace's) fed by
// hand as the live tab feeds it from the rows it reads (core/analysis/live_timeline_frame.h): it
// follows the latest moment until the user zooms away, keeps that zoom while the timeline grows,
// and never draws more than about two points per pixel column however many events arrived.

#include <QtTest>

#include "core/analysis/live_sources.h"
#include "core/analysis/live_timeline_frame.h"
#include "views/timeline_chart.h"

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

// The chart fed from `timeline` as LiveRecordingTab feeds it.
void feed(TimelineChart& chart, const LiveTimeline& timeline) {
  QObject::connect(&chart, &TimelineChart::frameRequested, &chart,
                   [&chart, &timeline](const TimelineRequest& r) { chart.setFrame(frameOf(timeline, r)); });
  chart.setXAxisByTime(true);
}

void grew(TimelineChart& chart, const LiveTimeline& timeline) {
  chart.setOverview(std::make_shared<const TimelineOverview>(overviewOf(timeline)));
}

int pointsDrawn(const TimelineChart& chart) {
  int points = 0;
  for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved})
    points += static_cast<int>(chart.linePoints(0, kind).count());
  return points;
}

}  // namespace

class LiveTimelineTest : public QObject {
  Q_OBJECT

 private slots:
  void followsTheEdgeUntilZoomedAway() {
    LiveTimeline timeline;
    const LiveDevice device{0, "H200", 2'000'000'000, 2'100'000'000, "", std::nullopt};
    timeline.setDevices(std::span(&device, 1));
    TimelineChart chart;
    chart.resize(900, 500);
    feed(chart, timeline);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    grew(chart, timeline);
    QVERIFY(!chart.line(0, SeriesKind::Allocated));  // nothing recorded yet

    auto rows = steps(0, 100);
    timeline.append(rows);
    grew(chart, timeline);
    QVERIFY(chart.followsLatest());
    QVERIFY(chart.line(0, SeriesKind::Allocated));
    QVERIFY(chart.line(0, SeriesKind::Reserved));
    QVERIFY(!chart.line(0, SeriesKind::DeviceUsed));  // not sampled
    const double edge1 = chart.window().boundsHi();
    QCOMPARE(edge1, double(timeline.lastTime()));
    QCOMPARE(chart.window().hi(), edge1);
    QCOMPARE(chart.window().lo(), 0.0);
    // The baseline carries: allocated peaks at 2 GB + 10 MB, and the peak is marked.
    double most = 0;
    for (const QPointF& p : chart.linePoints(0, SeriesKind::Allocated)) most = std::max(most, p.y());
    QCOMPARE(most * chart.yUnit().bytes, 2'010'000'000.0);
    QCOMPARE(chart.peakPoint(0).y(), 2'010'000'000.0);
    QCOMPARE(chart.peakPoint(0).x(), 9 * 40'000.0);  // the 10th allocation of the first step

    // More arrives: a following chart shows it all.
    rows = steps(100, 100);
    timeline.append(rows);
    grew(chart, timeline);
    QVERIFY(chart.window().boundsHi() > edge1);
    QCOMPARE(chart.window().hi(), chart.window().boundsHi());

    // Zoomed to the first quarter: stays there while the recording grows.
    chart.zoomTo(0, chart.window().boundsHi() / 4);
    QVERIFY(!chart.followsLatest());
    const double lo = chart.window().lo(), hi = chart.window().hi();
    rows = steps(200, 300);
    timeline.append(rows);
    grew(chart, timeline);
    QCOMPARE(chart.window().lo(), lo);
    QCOMPARE(chart.window().hi(), hi);
    QVERIFY(chart.window().boundsHi() > hi * 4);

    // A zoomed window that reaches the edge slides with it, keeping its width.
    chart.resetZoom();
    chart.zoomTo(chart.window().boundsHi() - 50e6, chart.window().boundsHi());
    QVERIFY(chart.followsLatest());
    rows = steps(500, 100);
    timeline.append(rows);
    grew(chart, timeline);
    QCOMPARE(chart.window().hi(), chart.window().boundsHi());
    QVERIFY(qAbs(chart.window().width() - 50e6) < 1);

    // End: everything again.
    QTest::keyClick(&chart, Qt::Key_End);
    QVERIFY(chart.followsLatest());
    QCOMPARE(chart.window().lo(), 0.0);
  }

  void drawsAboutTwoPointsPerColumnWhateverTheCount() {
    LiveTimeline timeline;
    TimelineChart chart;
    chart.resize(800, 400);
    feed(chart, timeline);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    for (int chunk = 0; chunk < 10; ++chunk) {
      auto rows = steps(chunk * 5000, 5000);  // 100,000 events a chunk
      timeline.append(rows);
      grew(chart, timeline);
    }
    QCOMPARE(timeline.events(), 1'000'000u);
    const int columns = static_cast<int>(chart.chart()->plotArea().width());
    QVERIFY(columns > 100);
    QVERIFY2(pointsDrawn(chart) <= 2 * 2 * (columns + 1), qPrintable(QString::number(pointsDrawn(chart))));
  }

  // A distributed recording's ranks, each in a file of its own, as LiveFollower maps them: every
  // line is named after its rank's file and device, not after a number.
  void eachRanksLinesAreNamedAfterItsFile() {
    LiveSourceMap map;
    LiveTimeline timeline;
    for (int rank : {0, 1}) {
      std::vector<LiveDevice> devices = {{kCpuDevice, "cpu", 0, 0, "", std::nullopt}};
      std::vector<LiveRow> rows = steps(0, 10);
      for (LiveRow& row : rows) row.device = kCpuDevice;
      // File 0 is the merged file, which a distributed recording writes only at the end.
      map.remap(static_cast<size_t>(rank) + 1, "rank " + std::to_string(rank), devices, rows);
      timeline.setDevices(devices);
      timeline.append(rows);
    }
    TimelineChart chart;
    chart.resize(900, 500);
    feed(chart, timeline);
    grew(chart, timeline);
    QCOMPARE(timeline.devices().size(), size_t{2});
    QStringList names;
    for (const LiveTimeline::Device& d : timeline.devices()) {
      QVERIFY(chart.line(d.device, SeriesKind::Allocated));
      names << chart.line(d.device, SeriesKind::Allocated)->name();
    }
    QCOMPARE(names, (QStringList{QStringLiteral("rank 0 · cpu allocated"), QStringLiteral("rank 1 · cpu allocated")}));
  }
};

QTEST_MAIN(LiveTimelineTest)
#include "live_timeline_test.moc"
