#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include "views/timeline_chart.h"
#include "views/trace_load_job.h"

using namespace sawtooth;
using namespace sawtooth::views;

class TimelineChartTest : public QObject {
  Q_OBJECT
 private:
  std::shared_ptr<const TraceAnalysis> load(const char* name) {
    auto result = TraceLoadJob::loadNow(QStringLiteral(SAWTOOTH_TEST_DATA "/") + name);
    if (!result.analysis) qFatal("%s", qPrintable(result.error));
    return result.analysis;
  }

  static double maxY(const QLineSeries* s) {
    double m = 0;
    for (const QPointF& p : s->points()) m = std::max(m, p.y());
    return m;
  }

 private slots:
  void showsTheAnatomyPeak() {
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    chart.setAnalysis(load("anatomy_adam_snapshot.pickle"));
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCOMPARE(chart.peakLabel(0), QStringLiteral("peak 572.5 MB"));
    QCOMPARE(chart.peakPoint(0), QPointF(105, 572.522496));
    QLineSeries* allocated = chart.line(0, SeriesKind::Allocated);
    QVERIFY(allocated);
    QVERIFY(chart.line(0, SeriesKind::Reserved));
    QVERIFY(!chart.line(0, SeriesKind::Driver));
    // Decimated, yet the envelope reaches exactly the peak.
    QVERIFY(allocated->count() <= chart.pointBudget());
    QCOMPARE(maxY(allocated), 572.522496);
  }

  void zoomsAndKeepsTheWindowInsideTheTrace() {
    TimelineChart chart;
    chart.resize(800, 500);
    chart.show();
    chart.setAnalysis(load("anatomy_adam_snapshot.pickle"));
    chart.zoomTo(100, 110);
    QCOMPARE(chart.window().lo(), 100.0);
    QCOMPARE(chart.window().hi(), 110.0);
    QVERIFY(chart.window().isZoomed());
    // Within [100, 110] the peak (event 105) is visible.
    QCOMPARE(maxY(chart.line(0, SeriesKind::Allocated)), 572.522496);
    chart.zoomTo(0, 50);  // before the peak
    QVERIFY(maxY(chart.line(0, SeriesKind::Allocated)) < 572.0);
    chart.pan(1e9);
    QCOMPARE(chart.window().hi(), 351.0);
    chart.resetZoom();
    QVERIFY(!chart.window().isZoomed());
    QSignalSpy spy(&chart, &TimelineChart::windowChanged);
    QTest::keyClick(&chart, Qt::Key_Plus);
    QCOMPARE(spy.count(), 1);
    QVERIFY(chart.window().width() < 351.0);
  }

  void timeAxisPlacesThePeakAtItsTime() {
    TimelineChart chart;
    chart.resize(800, 500);
    chart.show();
    auto analysis = load("anatomy_adam_snapshot.pickle");
    chart.setXAxisByTime(true);
    chart.setAnalysis(analysis);
    const Peak& peak = analysis->devices()[0]->line(SeriesKind::Allocated)->peak;
    QCOMPARE(chart.peakPoint(0).x(), static_cast<double>(peak.t_ns) / 1e6);
  }

  void describesEventsWithFramesAndPhase() {
    TimelineChart chart;
    auto analysis = load("anatomy_adam_snapshot.pickle");
    chart.setAnalysis(analysis);
    const QString text = chart.describeEvent(105);
    QVERIFY2(text.contains(QStringLiteral("alloc")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("Optimizer.step#Adam.step")));
    QVERIFY(text.contains(QStringLiteral("event #105")));
    QVERIFY(text.contains(QStringLiteral("allocated 572.5 MB")));
    QVERIFY(chart.describeEvent(-1).isEmpty());
    QVERIFY(chart.describeEvent(100000).isEmpty());
  }

  void exportsPngAndSvg() {
    QTemporaryDir dir;
    TimelineChart chart;
    chart.resize(900, 500);
    chart.show();
    chart.setAnalysis(load("oom_mlp_snapshot_protocol2.pickle.gz"));
    const QString png = dir.filePath("t.png"), svg = dir.filePath("t.svg");
    QVERIFY(chart.savePng(png, QSize(1200, 700)));
    QImage image(png);
    QCOMPARE(image.size(), QSize(1200, 700));
    QVERIFY(chart.saveSvg(svg));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray content = f.readAll();
    QVERIFY(content.contains("<svg"));
    QVERIFY(content.size() > 2000);
  }
};

QTEST_MAIN(TimelineChartTest)
#include "timeline_chart_test.moc"
