#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QHelpEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/views/view_test_data.h"
#include "views/timeline_chart.h"
#include "views/timeline_style.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

// A gpt2-like trace: 1.13 GB allocated before the trace began, then a 17 MB sawtooth.
std::shared_ptr<const TraceAnalysis> smallSawtoothOnALargeBaseline(int64_t baseline = 1'130'000'000) {
  Trace t;
  t.deviceInfo(0).baseline_allocated = baseline;
  t.deviceInfo(0).baseline_reserved = baseline + 20'000'000;
  for (int64_t step = 0; step < 40; ++step)
    for (int64_t k = 0; k < 10; ++k) {
      Event e;
      e.t_ns = (step * 20 + k) * 1000;
      e.action = Action::Alloc;
      e.size = 1'700'000;
      e.addr = static_cast<uint64_t>(0x1000 + k);
      t.events.push(e);
      e.t_ns += 10 * 1000;
      e.action = Action::FreeCompleted;
      t.events.push(e);
    }
  // Allocations then frees in each step: a sawtooth of 17 MB.
  std::vector<Event> ordered;
  for (size_t i = 0; i < t.events.size(); ++i) ordered.push_back(t.events.at(i));
  std::stable_sort(ordered.begin(), ordered.end(), [](const Event& a, const Event& b) { return a.t_ns < b.t_ns; });
  t.events.clear();
  for (const Event& e : ordered) t.events.push(e);
  return test::analyse(std::move(t));
}

// Where a legend entry's text is drawn, in the chart view's viewport; null when there is none.
QPoint legendEntry(const QChartView& view, const QString& name) {
  QList<QGraphicsItem*> items = view.chart()->legend()->childItems();
  while (!items.isEmpty()) {
    QGraphicsItem* item = items.takeFirst();
    items += item->childItems();
    if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible() && text->toPlainText() == name)
      return view.mapFromScene(text->sceneBoundingRect().center());
    if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item); text && text->isVisible() && text->text() == name)
      return view.mapFromScene(text->sceneBoundingRect().center());
  }
  return {};
}

double maxY(const QList<QPointF>& points) {
  double m = -INFINITY;
  for (const QPointF& p : points) m = std::max(m, p.y());
  return m;
}

}  // namespace

class TimelineChartTest : public QObject {
  Q_OBJECT
  std::shared_ptr<const TraceAnalysis> anatomy_ = test::fixture("anatomy_adam_snapshot.pickle")->analysis;

 private slots:
  void showsTheAnatomyPeak() {
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    chart.setAnalysis(anatomy_);
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCOMPARE(chart.peakLabel(0), QStringLiteral("peak 572.5 MB"));
    QCOMPARE(chart.peakPoint(0), QPointF(105, 572522496));
    QVERIFY(chart.peakShown(0));
    QVERIFY(chart.line(0, SeriesKind::Allocated));
    const QList<QPointF> allocated = chart.linePoints(0, SeriesKind::Allocated);
    QVERIFY(chart.line(0, SeriesKind::Reserved));
    QVERIFY(!chart.line(0, SeriesKind::Driver));
    // Decimated, yet the envelope reaches exactly the peak.
    QVERIFY(allocated.count() <= chart.pointBudget());
    QCOMPARE(chart.yUnit().name, std::string_view("MB"));
    QCOMPARE(maxY(allocated), 572.522496);
  }

  void zoomsAndKeepsTheWindowInsideTheTrace() {
    TimelineChart chart;
    chart.resize(800, 500);
    chart.show();
    chart.setAnalysis(anatomy_);
    chart.zoomTo(100, 110);
    QCOMPARE(chart.window().lo(), 100.0);
    QCOMPARE(chart.window().hi(), 110.0);
    QVERIFY(chart.window().isZoomed());
    // Within [100, 110] the peak (event 105) is visible.
    QCOMPARE(maxY(chart.linePoints(0, SeriesKind::Allocated)) * chart.yUnit().bytes, 572522496.0);
    chart.zoomTo(0, 50);  // before the peak
    QVERIFY(maxY(chart.linePoints(0, SeriesKind::Allocated)) * chart.yUnit().bytes < 572.0e6);
    chart.pan(1e9);
    QCOMPARE(chart.window().hi(), 351.0);
    chart.resetZoom();
    QVERIFY(!chart.window().isZoomed());
    QSignalSpy spy(&chart, &TimelineChart::windowChanged);
    QTest::keyClick(&chart, Qt::Key_Plus);
    QCOMPARE(spy.count(), 1);
    QVERIFY(chart.window().width() < 351.0);
  }

  void theYAxisFitsTheVisibleRange() {
    // 17 MB on 1.13 GB stayed a flat line at the top at any zoom; fitted, it fills the height.
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    chart.setAnalysis(smallSawtoothOnALargeBaseline());
    QCOMPARE(chart.yUnit().name, std::string_view("GB"));
    QVERIFY(chart.yTitle().contains(QStringLiteral("GB")));
    QVERIFY2(chart.yRange().lo > 1.0e9, qPrintable(QString::number(chart.yRange().lo)));
    QVERIFY(chart.yRange().hi - chart.yRange().lo < 50e6);
    chart.zoomTo(100, 140);
    QVERIFY(chart.yRange().lo > 1.1e9);
    chart.setYFromZero(true);
    QCOMPARE(chart.yRange().lo, 0.0);
    QVERIFY(chart.yRange().hi >= 1.147e9);
    chart.setYFromZero(false);
    QVERIFY(chart.yRange().lo > 1.1e9);
  }

  void theUnitFollowsTheRange() {
    TimelineChart chart;
    chart.resize(800, 500);
    chart.show();
    chart.setAnalysis(smallSawtoothOnALargeBaseline(15'000'000'000));  // gpt2's 15 GB
    QCOMPARE(chart.yUnit().name, std::string_view("GB"));
    QVERIFY(chart.yRange().hi / chart.yUnit().bytes < 100);  // no "15000" on the axis
  }

  void aPeakOutsideTheWindowLeavesNoLabel() {
    TimelineChart chart;
    chart.resize(900, 500);
    chart.show();
    chart.setAnalysis(anatomy_);
    QVERIFY(chart.peakShown(0));
    QVERIFY(!chart.peakLabelRect(0).isEmpty());
    chart.zoomTo(200, 300);  // after the peak at event 105: no clipped "pe" at the left edge
    QVERIFY(!chart.peakShown(0));
    QVERIFY(chart.peakLabelRect(0).isEmpty());
    chart.zoomTo(100, 110);
    QVERIFY(chart.peakShown(0));
    const QRectF plot = chart.chart()->mapToScene(chart.chart()->plotArea()).boundingRect();
    QVERIFY(plot.adjusted(-1, -1, 1, 1).contains(chart.peakLabelRect(0)));
  }

  void stackingKeepsTheZoom() {
    TimelineChart chart;
    chart.resize(900, 500);
    chart.show();
    chart.setAnalysis(test::sample("anatomy.sawtooth")->analysis);
    chart.setVisibleDevices({0});
    QVERIFY(chart.hasCategories());
    chart.zoomTo(1000, 1400);
    chart.setStackedCategories(true);
    QCOMPARE(chart.window().lo(), 1000.0);
    QCOMPARE(chart.window().hi(), 1400.0);
    QVERIFY(chart.categoryArea(0, Category::Activation));
    // Every byte in a band: the stack's top is the allocated line's top in every column.
    const QList<QPointF> top = chart.categoryTop(0, Category::Temporary);
    QCOMPARE(top.count(), chart.categoryTop(0, Category::Unknown).count());
    QCOMPARE(maxY(top), maxY(chart.linePoints(0, SeriesKind::Allocated)));
    chart.setStackedCategories(false);
    QCOMPARE(chart.window().lo(), 1000.0);
  }

  void phaseBandsOnTheIndexAxisOfTheGpu() {
    // The H200 samples' CPU device has a dozen events: bands placed on its count showed a sliver.
    TimelineChart chart;
    chart.resize(1400, 600);
    chart.show();
    chart.setAnalysis(test::sample("anatomy.sawtooth")->analysis);
    chart.setVisibleDevices({0});
    QVERIFY2(chart.bandsShown() > 20, qPrintable(QString::number(chart.bandsShown())));
    chart.setXAxisByTime(true);
    QVERIFY2(chart.bandsShown() > 3, qPrintable(QString::number(chart.bandsShown())));
  }

  void theHoverStaysWhileThePointerRests() {
    TimelineChart chart;
    chart.resize(900, 500);
    chart.show();
    chart.setAnalysis(anatomy_);
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QRectF plot = chart.chart()->plotArea();
    const QPoint inside = chart.mapFromScene(chart.chart()->mapToScene(plot.center()));
    QTest::mouseMove(chart.viewport(), inside);
    QTRY_VERIFY(chart.hoverVisible());
    QVERIFY(chart.hoverText().contains(QStringLiteral("event #")));
    // A resting pointer gets a tool-tip event; the graphics view used to answer it by hiding tooltips.
    QHelpEvent help(QEvent::ToolTip, inside, chart.viewport()->mapToGlobal(inside));
    QApplication::sendEvent(chart.viewport(), &help);
    QTest::qWait(1500);
    QVERIFY(chart.hoverVisible());
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&chart, &leave);
    QVERIFY(!chart.hoverVisible());
  }

  void clickingALegendEntryHidesWhatItStandsFor() {
    // The chart's own mouse handling (rubber band, pan) used to swallow the click meant for the legend.
    TimelineChart chart;
    chart.resize(1200, 600);
    chart.show();
    chart.setAnalysis(test::sample("anatomy.sawtooth")->analysis);
    chart.setVisibleDevices({0});
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QLineSeries* reserved = chart.line(0, SeriesKind::Reserved);
    QVERIFY(reserved && reserved->isVisible());
    const QPoint at = legendEntry(chart, QStringLiteral("reserved"));
    QVERIFY(!at.isNull());
    QTest::mouseClick(chart.viewport(), Qt::LeftButton, {}, at);
    QVERIFY(!reserved->isVisible());
    QVERIFY(!chart.window().isZoomed());  // the click did not start a zoom
    QTest::mouseClick(chart.viewport(), Qt::LeftButton, {}, legendEntry(chart, QStringLiteral("reserved")));
    QVERIFY(reserved->isVisible());
    // A phase's entry hides its bands.
    const int bands = chart.bandsShown();
    QVERIFY(bands > 0);
    QTest::mouseClick(chart.viewport(), Qt::LeftButton, {}, legendEntry(chart, QStringLiteral("forward")));
    QVERIFY2(chart.bandsShown() < bands, qPrintable(QStringLiteral("%1 of %2").arg(chart.bandsShown()).arg(bands)));
  }

  void labelsCoverNoOtherLabelOrMarker() {
    // An out-of-memory right after the peak: "out of memory" was drawn over the peak's dot and line.
    const auto oom = test::fixture("oom_mlp_snapshot_protocol2.pickle.gz")->analysis;
    for (const QSize size : {QSize(1500, 450), QSize(1200, 600), QSize(900, 500), QSize(700, 420)}) {
      TimelineChart chart;
      chart.resize(size);
      chart.show();
      chart.setAnalysis(oom);
      QVERIFY(QTest::qWaitForWindowExposed(&chart));
      const auto labels = chart.markerLabelRects();
      const auto markers = chart.markerRects();
      QCOMPARE(labels.size(), size_t{2});
      QCOMPARE(markers.size(), size_t{2});
      QVERIFY(!labels[0].intersects(labels[1]));
      for (const QRectF& l : labels)
        for (const QRectF& m : markers)
          QVERIFY2(!l.intersects(m), qPrintable(QStringLiteral("%1×%2: label at %3,%4 over a marker at %5,%6")
                                                     .arg(size.width()).arg(size.height()).arg(l.x()).arg(l.y()).arg(m.x()).arg(m.y())));
    }

    // A band's name under the peak's label (a data-parallel step's "allreduce"): the name gives way.
    Trace t;
    for (int64_t k = 0; k < 60; ++k) {
      Event e;
      e.t_ns = k * 1000;
      e.action = k < 40 ? Action::Alloc : Action::FreeCompleted;
      e.size = 1'000'000;
      e.addr = static_cast<uint64_t>(0x1000 * (k < 40 ? k + 1 : k - 39));
      t.events.push(e);
    }
    t.phases.push_back(Phase{"allreduce", PhaseKind::Phase, kAllDevices, kNoRun, 37'500, 45'000});
    TimelineChart chart;  // a rank's lane: short, no legend
    chart.setCompact(true);
    chart.resize(1000, 190);
    chart.show();
    chart.setAnalysis(test::analyse(std::move(t)));
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QVERIFY(chart.bandsShown() > 0);
    for (const QRectF& band : chart.bandLabelRects())
      for (const QRectF& label : chart.markerLabelRects()) QVERIFY(!band.intersects(label));
  }

  void aStackedLegendCutsNoEntry() {
    // Stacked, the anatomy recording's legend holds 8 categories, 4 lines and the plan: in one row
    // below the plot its last entries read "plan: parameters ...".
    const auto report = test::sample("anatomy.sawtooth");
    TimelineChart chart;
    chart.resize(1200, 600);
    chart.show();
    chart.setPlanLines(report->plan_lines);
    chart.setAnalysis(report->analysis);
    chart.setVisibleDevices({0});
    chart.setStackedCategories(true);
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCoreApplication::processEvents();
    int entries = 0;
    for (QLegendMarker* m : chart.chart()->legend()->markers()) {
      if (!m->isVisible()) continue;
      ++entries;
      QVERIFY2(!legendEntry(chart, m->label()).isNull(), qPrintable(m->label() + QStringLiteral(" is cut")));
    }
    QVERIFY(entries >= 12);
    QCOMPARE(chart.planLabels().first().left(6), QStringLiteral("plan: "));  // the whole sentence stays for whoever asks
    // Not stacked, the few entries fit below the plot.
    chart.setStackedCategories(false);
    QCoreApplication::processEvents();
    QCOMPARE(chart.chart()->legend()->alignment(), Qt::AlignBottom);
  }

  void thePlanLinesAgainLeaveTheSeriesAsTheyAre() {
    // The app hands the runs' plan lines to a chart already drawn (a file opened from its summaries,
    // once the runs' figures are in): the same lines again make no series anew, new ones do.
    const auto report = test::sample("anatomy.sawtooth");
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.setAnalysis(report->analysis);
    QLineSeries* before = chart.line(0, SeriesKind::Allocated);
    QVERIFY(before);
    chart.setPlanLines({});
    QVERIFY(chart.line(0, SeriesKind::Allocated) == before);  // (not QCOMPARE: it would print a deleted series)
    chart.setPlanLines(report->plan_lines);
    QVERIFY(!chart.planLabels().isEmpty());
    QLineSeries* with_plan = chart.line(0, SeriesKind::Allocated);
    chart.setPlanLines(report->plan_lines);
    QVERIFY(chart.line(0, SeriesKind::Allocated) == with_plan);
    QCOMPARE(chart.planLabels().size(), static_cast<qsizetype>(report->plan_lines.size()));
  }

  void aTraceReadWholeIsDrawnAgainOnlyWhenItsColumnsChange() {
    // Its report arriving reshaped the tab around the chart four times, each drawing every series
    // again on the GUI thread (119 ms on a 2.9 M-event recording, stacked): a taller chart keeps its
    // columns, and Qt maps the points it holds to the new plot itself.
    TimelineChart chart;
    chart.resize(1000, 500);
    chart.show();
    chart.setAnalysis(test::sample("anatomy.sawtooth")->analysis);
    chart.setVisibleDevices({0});
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCoreApplication::processEvents();
    QVERIFY(chart.line(0, SeriesKind::Allocated));
    const uint64_t drawn = chart.linesDrawn();
    const qreal width = chart.chart()->plotArea().width();
    chart.resize(1000, 520);
    QCoreApplication::processEvents();
    QCOMPARE(chart.chart()->plotArea().width(), width);
    QCOMPARE(chart.linesDrawn(), drawn);
    chart.resize(1200, 520);  // more columns: drawn again at the plot's own
    QCoreApplication::processEvents();
    QVERIFY(chart.linesDrawn() > drawn);
    QVERIFY(chart.linePoints(0, SeriesKind::Allocated).count() > static_cast<int>(width));
  }

  void manyOverlappingBandsAndDevicesAreBounded() {
    // 20,000 annotations open at once, each of its own name: a rectangle and a label each before.
    Trace t;
    for (int64_t k = 0; k < 40; ++k) {
      Event e;
      e.t_ns = k * 1000;
      e.action = k < 20 ? Action::Alloc : Action::FreeCompleted;
      e.size = 1'000'000;
      e.addr = static_cast<uint64_t>(0x1000 * (k < 20 ? k + 1 : k - 19));
      t.events.push(e);
    }
    for (int i = 0; i < 20'000; ++i)
      t.phases.push_back(Phase{"annotation " + std::to_string(i), PhaseKind::Annotation, kAllDevices, kNoRun, i % 500,
                               40'000 - i % 500});
    TimelineChart chart;
    chart.resize(1000, 500);
    chart.show();
    chart.setAnalysis(test::analyse(std::move(t)));
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QVERIFY(chart.bandsShown() > 0);
    QVERIFY2(chart.bandsShown() <= 256 + 2, qPrintable(QString::number(chart.bandsShown())));
    const auto names = chart.bandLabelRects();
    for (size_t i = 0; i < names.size(); ++i)
      for (size_t j = i + 1; j < names.size(); ++j) QVERIFY(!names[i].intersects(names[j]));

    // 20 devices: the 8 with the largest peaks are drawn, the others on demand.
    Trace many;
    for (int16_t d = 0; d < 20; ++d)
      for (Action a : {Action::Alloc, Action::FreeCompleted}) {
        Event e;
        e.device = d;
        e.action = a;
        e.size = 1'000'000 * (d + 1);
        e.addr = 0x1000;
        e.t_ns = d;
        many.events.push(e);
      }
    chart.setAnalysis(test::analyse(std::move(many)));
    QCOMPARE(chart.devicesLeftOut(), size_t{12});
    QVERIFY(chart.line(19, SeriesKind::Allocated));
    QVERIFY(chart.line(12, SeriesKind::Allocated));
    QVERIFY(!chart.line(11, SeriesKind::Allocated));
    chart.setVisibleDevices({3});
    QVERIFY(chart.line(3, SeriesKind::Allocated));
    QCOMPARE(chart.devicesLeftOut(), size_t{0});
  }

  void allocatedAndReservedDifferInHue() {
    for (int device = 0; device < 4; ++device) {
      const QColor a = seriesPen(SeriesKind::Allocated, device).color();
      const QColor r = seriesPen(SeriesKind::Reserved, device).color();
      const int dh = std::abs(a.hslHue() - r.hslHue());
      QVERIFY2(std::min(dh, 360 - dh) >= 60, qPrintable(QStringLiteral("device %1: %2 vs %3").arg(device).arg(a.name(), r.name())));
    }
  }

  void linesAreDrawnWithCosmeticPensOfOnePixel() {
    // Qt's raster engine draws a cosmetic pen of at most one pixel straight into the image; a wider
    // pen is stroked into an outline first and the outline filled, 10-50 times slower for two points
    // a column (bench/results/cpu-app-timeline-open-2026-12-02-b.md). Dashes keep their length.
    TimelineChart chart;
    chart.resize(800, 500);
    chart.show();
    chart.setAnalysis(anatomy_);
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved}) {
      const QPen pen = chart.line(0, kind)->pen();
      QVERIFY(pen.isCosmetic());
      QVERIFY(pen.widthF() <= 1.0);
      const QPen styled = seriesPen(kind, 0);
      QCOMPARE(pen.color(), styled.color());
      QCOMPARE(pen.style() == Qt::SolidLine, styled.style() == Qt::SolidLine);
      if (styled.style() != Qt::SolidLine) {
        const QList<qreal> drawn = pen.dashPattern(), asked = styled.dashPattern();
        QCOMPARE(drawn.size(), asked.size());
        for (qsizetype i = 0; i < drawn.size(); ++i) QCOMPARE(drawn[i] * pen.widthF(), asked[i] * styled.widthF());
      }
    }
  }

  void thePeakIsDrawnAtItsPixel() {
    // Drawn offscreen: the allocated line's highest pixel in the plot is the peak's, at its column.
    TimelineChart chart;
    chart.resize(1000, 600);
    chart.show();
    chart.setBandsVisible(false);
    chart.setAnalysis(anatomy_);
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QImage image = chart.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QPointF peak = chart.mapFromScene(chart.chart()->mapToPosition(
        QPointF(chart.peakPoint(0).x(), chart.peakPoint(0).y() / chart.yUnit().bytes), chart.line(0, SeriesKind::Allocated)));
    const QRect plot = chart.mapFromScene(chart.chart()->plotArea()).boundingRect().adjusted(2, 2, -2, -2);
    const QColor line = seriesPen(SeriesKind::Allocated, 0).color();
    auto isLine = [&](QRgb p) {  // the line's blue, whole or half covered (antialiased)
      return qBlue(p) - qRed(p) > (line.blue() - line.red()) / 3 && qRed(p) < 200;
    };
    int top = -1, top_x = -1;
    for (int y = plot.top(); y <= plot.bottom() && top < 0; ++y)
      for (int x = plot.left(); x <= plot.right(); ++x)
        if (isLine(image.pixel(x, y))) {
          top = y, top_x = x;
          break;
        }
    QVERIFY2(top >= 0, "no allocated line drawn");
    QVERIFY2(std::abs(top - peak.y()) <= 1.5, qPrintable(QStringLiteral("top at y %1, peak at y %2").arg(top).arg(peak.y())));
    // (The peak's dot covers the line's top at its column: its first pixel shows at the dot's edge.)
    QVERIFY2(std::abs(top_x - peak.x()) <= 7.0, qPrintable(QStringLiteral("top at x %1, peak at x %2").arg(top_x).arg(peak.x())));
  }

  void timeAxisPlacesThePeakAtItsTime() {
    TimelineChart chart;
    chart.resize(800, 500);
    chart.show();
    chart.setXAxisByTime(true);
    chart.setAnalysis(anatomy_);
    const Peak& peak = anatomy_->devices()[0]->line(SeriesKind::Allocated)->peak;
    QCOMPARE(chart.peakPoint(0).x(), static_cast<double>(peak.t_ns));
  }

  void describesEventsWithFramesAndPhase() {
    TimelineChart chart;
    chart.setAnalysis(anatomy_);
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
    chart.setAnalysis(test::fixture("oom_mlp_snapshot_protocol2.pickle.gz")->analysis);
    QCOMPARE(chart.oomMarkers(), 1);
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
