// The timeline chart drawing a trace read on demand (setOverview / frameRequested / setFrame): the
// same chart, zoom and pan as a trace in memory, its frames computed elsewhere (here: by the test,
// from core's TimelineModel over the trace's summaries held in memory).

#include <QLineSeries>
#include <QSignalSpy>
#include <QtTest>

#include "core/analysis/summary_source.h"
#include "core/analysis/timeline_frame.h"
#include "view_test_data.h"
#include "views/timeline_chart.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

double maxY(const QList<QPointF>& points) {
  double m = -INFINITY;
  for (const QPointF& p : points) m = std::max(m, p.y());
  return m;
}

// A trace's timeline as a file's summaries would give it.
struct Frames {
  explicit Frames(std::shared_ptr<const Trace> t) : trace(std::move(t)) {
    auto source = summary::MemorySource::build(*trace);
    if (!source) qFatal("%s", source.error().message.c_str());
    model = std::make_unique<TimelineModel>(std::shared_ptr<summary::SummarySource>(std::move(*source)));
    if (Status st = model->refresh(); !st) qFatal("%s", st.error().message.c_str());
  }
  std::shared_ptr<const TimelineOverview> overview() {
    auto o = overviewOf(*model);
    if (!o) qFatal("%s", o.error().message.c_str());
    return std::make_shared<const TimelineOverview>(std::move(*o));
  }
  TimelineFrame frame(const TimelineRequest& r) {
    auto f = frameOf(*model, r);
    if (!f) qFatal("%s", f.error().message.c_str());
    return std::move(*f);
  }
  std::shared_ptr<const Trace> trace;
  std::unique_ptr<TimelineModel> model;
};

}  // namespace

class TimelineFramesTest : public QObject {
  Q_OBJECT
  std::shared_ptr<const TraceAnalysis> anatomy_ = test::fixture("anatomy_adam_snapshot.pickle")->analysis;

 private slots:
  void drawsTheAnatomyPeakFromFrames() {
    Frames frames(anatomy_->sharedTrace());
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QObject::connect(&chart, &TimelineChart::frameRequested, &chart,
                     [&](const TimelineRequest& r) { chart.setFrame(frames.frame(r)); });
    chart.setOverview(frames.overview());
    QCOMPARE(chart.peakLabel(0), QStringLiteral("peak 572.5 MB"));
    QCOMPARE(chart.peakPoint(0), QPointF(105, 572522496));
    QVERIFY(chart.line(0, SeriesKind::Allocated));
    const QList<QPointF> allocated = chart.linePoints(0, SeriesKind::Allocated);
    QVERIFY(chart.line(0, SeriesKind::Reserved));
    QVERIFY(allocated.count() > 0);
    QVERIFY(allocated.count() <= chart.pointBudget() + 4);
    QCOMPARE(maxY(allocated), 572.522496);
    QVERIFY(!chart.frameComputing());
    QVERIFY(chart.statusText().isEmpty());
    // Zoom and pan are the chart's own, as with a trace in memory.
    chart.zoomTo(0, 50);  // before the peak
    QCOMPARE(chart.frame()->request.x0, 0.0);
    QVERIFY(maxY(chart.linePoints(0, SeriesKind::Allocated)) * chart.yUnit().bytes < 572.0e6);
    chart.pan(1e9);
    QCOMPARE(chart.window().hi(), 351.0);
    QCOMPARE(chart.frame()->request.x1, 351.0);
  }

  void saysWhileAFrameIsComputedAndDropsSupersededOnes() {
    Frames frames(anatomy_->sharedTrace());
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    std::vector<TimelineRequest> asked;
    QObject::connect(&chart, &TimelineChart::frameRequested, &chart, [&](const TimelineRequest& r) { asked.push_back(r); });
    chart.setOverview(frames.overview());
    QVERIFY(!asked.empty());
    QVERIFY(chart.frameComputing());
    QVERIFY(chart.statusText().contains(QStringLiteral("Computing")));
    chart.setFrame(frames.frame(asked.back()));
    QVERIFY(!chart.frameComputing());
    QVERIFY(chart.statusText().isEmpty());
    const int drawn = static_cast<int>(chart.linePoints(0, SeriesKind::Allocated).count());
    QVERIFY(drawn > 0);
    // Two zooms before either frame arrives: the first one's frame is dropped, the last one drawn.
    chart.zoomTo(0, 50);
    const TimelineRequest first = asked.back();
    chart.zoomTo(100, 110);
    const TimelineRequest second = asked.back();
    QVERIFY(first.id != second.id);
    // Until it comes, the last frame stays drawn where it falls in this window (no empty chart while
    // the window is read): its points inside and one on each side, not the ones the window clips.
    const QList<QPointF> kept = chart.linePoints(0, SeriesKind::Allocated);
    QVERIFY(kept.size() >= 3 && kept.size() < drawn);
    QVERIFY(kept.front().x() < 100 && kept.back().x() > 110);
    QVERIFY(kept[1].x() >= 100 && kept[kept.size() - 2].x() <= 110);
    chart.setFrame(frames.frame(first));
    QVERIFY(chart.frameComputing());
    QCOMPARE(chart.frame()->request.x0, asked.front().x0);
    chart.setFrame(frames.frame(second));
    QVERIFY(!chart.frameComputing());
    QCOMPARE(chart.frame()->request.x0, 100.0);
    QCOMPARE(maxY(chart.linePoints(0, SeriesKind::Allocated)) * chart.yUnit().bytes, 572522496.0);
    // A failure is said on the chart.
    chart.zoomTo(0, 20);
    chart.setFrameFailed(QStringLiteral("disk I/O error"));
    QVERIFY(chart.statusText().contains(QStringLiteral("disk I/O error")));
  }

  void oneFrameAZoomWhenTheLabelsMoveThePlot() {
    // The plot narrows and widens by a few pixels with the axes' labels (here the x axis' last one,
    // "2" or "351", overhangs its right edge). Each zoom asks for one frame, not another for a plot a
    // few pixels narrower once Qt has laid the new labels out (each would be computed and drawn again).
    Frames frames(anatomy_->sharedTrace());
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    int asked = 0;
    QObject::connect(&chart, &TimelineChart::frameRequested, &chart, [&](const TimelineRequest& r) {
      ++asked;
      chart.setFrame(frames.frame(r));
    });
    chart.setOverview(frames.overview());
    QTest::qWait(50);
    const QRectF plot = chart.chart()->plotArea();
    bool moved = false;
    for (auto [lo, hi] : {std::pair{0.0, 2.0}, {0.0, 351.0}, {10.0, 12.0}, {0.0, 351.0}, {150.0, 152.0}, {0.0, 351.0}}) {
      const int before = asked;
      chart.zoomTo(lo, hi);
      QTest::qWait(50);  // the layout of the new labels
      moved = moved || chart.chart()->plotArea().width() != plot.width();
      QCOMPARE(asked, before + 1);
      QVERIFY(!chart.frameComputing());
    }
    QVERIFY2(moved, "the labels never moved the plot: the case is not tested");
  }

  void theTraceInMemoryTakesOverWithTheZoomKept() {
    Frames frames(anatomy_->sharedTrace());
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QObject::connect(&chart, &TimelineChart::frameRequested, &chart,
                     [&](const TimelineRequest& r) { chart.setFrame(frames.frame(r)); });
    chart.setOverview(frames.overview());
    chart.zoomTo(100, 110);
    chart.setAnalysis(anatomy_);
    QVERIFY(!chart.overview());
    QCOMPARE(chart.window().lo(), 100.0);
    QCOMPARE(chart.window().hi(), 110.0);
    QCOMPARE(maxY(chart.linePoints(0, SeriesKind::Allocated)) * chart.yUnit().bytes, 572522496.0);
  }

  void aGrowingTraceIsFollowedOrKeptWhereTheUserLooks() {
    // The first half of the trace, then all of it: a recording that grew.
    const Trace& whole = anatomy_->trace();
    Trace half;
    for (DeviceId id : whole.deviceIds())
      if (const DeviceInfo* d = whole.device(id)) half.deviceInfo(id) = *d;
    for (size_t i = 0; i < whole.events.size() / 2; ++i) half.events.push(whole.events.at(i));
    Frames first(std::make_shared<const Trace>(std::move(half)));
    Frames all(anatomy_->sharedTrace());
    Frames* current = &first;
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QObject::connect(&chart, &TimelineChart::frameRequested, &chart,
                     [&](const TimelineRequest& r) { chart.setFrame(current->frame(r)); });
    chart.setOverview(first.overview());
    const double half_end = chart.window().hi();
    // Zoomed to the latest moment: the window slides with the edge, its width kept.
    chart.zoomTo(half_end - 20, half_end);
    QVERIFY(chart.followsLatest());
    current = &all;
    chart.setOverview(all.overview());
    QVERIFY(chart.window().hi() > half_end);
    QCOMPARE(chart.window().hi(), chart.window().boundsHi());
    QCOMPARE(chart.window().width(), 20.0);
    QCOMPARE(chart.frame()->request.x1, chart.window().hi());
    // Zoomed elsewhere: the window stays.
    chart.zoomTo(10, 30);
    QVERIFY(!chart.followsLatest());
    chart.setOverview(all.overview());
    QCOMPARE(chart.window().lo(), 10.0);
    QCOMPARE(chart.window().hi(), 30.0);
  }
};

QTEST_MAIN(TimelineFramesTest)
#include "timeline_frames_test.moc"
