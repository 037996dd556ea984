// The timeline's and the fragmentation chart's lines drawn by one item each (views/polyline_item.h):
// their QLineSeries hold no points (Qt outlines every point a series holds on each change of the
// axes or the plot), the picture is Qt's own, and the item draws what it is given and nothing else.
#include <QGraphicsScene>
#include <QImage>
#include <QLineSeries>
#include <QtTest>
#include <algorithm>
#include <limits>

#include "core/analysis/allocator_history.h"
#include "core/analysis/fragmentation_series.h"
#include "core/io/trace_loader.h"
#include "tests/views/scene_render.h"
#include "tests/views/view_test_data.h"
#include "views/fragmentation_chart.h"
#include "views/polyline_item.h"
#include "views/timeline_chart.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

constexpr SeriesKind kKinds[] = {SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::Driver, SeriesKind::DeviceUsed};

void showAnatomy(TimelineChart& chart) {
  chart.resize(900, 500);
  chart.show();
  chart.setAnalysis(test::sample("anatomy.sawtooth")->analysis);
  chart.setVisibleDevices({0});
}

PolylineItem* linesItem(QChartView& chart) {
  for (QGraphicsItem* item : chart.scene()->items())
    if (auto* lines = dynamic_cast<PolylineItem*>(item)) return lines;
  return nullptr;
}

// Pixels not white in the plot.
qint64 inked(const QImage& image, const QRect& plot) {
  qint64 n = 0;
  for (int y = plot.top(); y <= plot.bottom(); ++y)
    for (int x = plot.left(); x <= plot.right(); ++x) n += image.pixelColor(x, y) != QColor(Qt::white);
  return n;
}

}  // namespace

class PolylineItemTest : public QObject {
  Q_OBJECT
 private slots:
  void theTimelinesSeriesHoldNoPoints() {
    TimelineChart chart;
    showAnatomy(chart);
    chart.zoomTo(1000, 1400);
    QCoreApplication::processEvents();
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved}) {
      QVERIFY(chart.line(0, kind));
      QCOMPARE(chart.line(0, kind)->count(), 0);
      QVERIFY(chart.linePoints(0, kind).count() > 10);
    }
    QVERIFY(linesItem(chart));
    QVERIFY(linesItem(chart)->lines().size() >= 2);  // allocated, reserved and what else the GPU has
    chart.setStackedCategories(true);
    QCoreApplication::processEvents();
    QCOMPARE(chart.categoryArea(0, Category::Activation)->upperSeries()->count(), 0);
    QVERIFY(chart.categoryTop(0, Category::Activation).count() > 10);
  }

  void theFragmentationChartsSeriesHoldNoPoints() {
    auto trace = loadTrace(std::string(SAWTOOTH_TEST_DATA) + "/anatomy_adam_snapshot.pickle");
    QVERIFY(trace.ok());
    const auto t = std::make_shared<const Trace>(std::move(*trace));
    auto history = AllocatorHistory::build(*t, 0);
    QVERIFY(history.ok());
    FragmentationChart chart;
    chart.resize(900, 240);
    chart.show();
    chart.setSeries(std::make_shared<const FragmentationSeries>(t, std::make_shared<const AllocatorHistory>(std::move(history.value()))));
    QCoreApplication::processEvents();
    for (int i = 0; i < FragmentationSeries::kLines; ++i) {
      QCOMPARE(chart.line(i)->count(), 0);
      QVERIFY(chart.linePoints(i).count() > 1);
    }
    QVERIFY(linesItem(chart));
  }

  void looksAsQtsLines() {
    TimelineChart chart;
    showAnatomy(chart);
    for (auto [lo, hi] : {std::pair{0.0, 6000.0}, std::pair{1000.0, 1100.0}}) {
      chart.zoomTo(lo, hi);
      QCoreApplication::processEvents();
      const QImage ours = chart.grab().toImage().convertToFormat(QImage::Format_RGB32);
      // Qt's own: the series given the points, the item hidden.
      PolylineItem* item = linesItem(chart);
      item->setVisible(false);
      for (SeriesKind kind : kKinds)
        if (chart.line(0, kind)) chart.line(0, kind)->replace(chart.linePoints(0, kind));
      QCoreApplication::processEvents();
      const QImage qts = chart.grab().toImage().convertToFormat(QImage::Format_RGB32);
      item->setVisible(true);
      for (SeriesKind kind : kKinds)
        if (chart.line(0, kind)) chart.line(0, kind)->clear();
      QCoreApplication::processEvents();
      const QRect plot = chart.mapFromScene(chart.chart()->mapToScene(chart.chart()->plotArea())).boundingRect();
      const QRect inner = plot.adjusted(1, 1, -1, -1);
      QVERIFY(inked(ours, inner) > inner.width());  // something drawn
      const double share = test::differingShare(ours, qts, inner, 48);
      QVERIFY2(share < 0.01, qPrintable(QStringLiteral("%1..%2: %3 of the plot differs").arg(lo).arg(hi).arg(share)));
      // The item's picture is not the chart without it.
      item->setVisible(false);
      QCoreApplication::processEvents();
      const QImage none = chart.grab().toImage().convertToFormat(QImage::Format_RGB32);
      item->setVisible(true);
      QVERIFY(test::differingShare(ours, none, inner, 48) > share);
    }
  }

  void aHiddenLineIsNotDrawn() {
    TimelineChart chart;
    showAnatomy(chart);
    QCoreApplication::processEvents();
    chart.line(0, SeriesKind::Reserved)->setVisible(false);
    chart.zoomTo(1000, 1100);  // drawn again with the series' state
    QCoreApplication::processEvents();
    const auto& lines = linesItem(chart)->lines();
    QVERIFY(lines.size() >= 2);
    QCOMPARE(std::count_if(lines.begin(), lines.end(), [](const PolylineItem::Line& l) { return !l.visible; }), 1);
  }

  void placedThroughTheMappingAndClippedToThePlot() {
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new PolylineItem;
    scene.addItem(item);
    QPen pen(Qt::red, 1);
    pen.setCosmetic(true);
    // y = 45 − 10 v, x = 10 + 10 v: (0, 0) at (10, 45), (8, 3) at (90, 15); the last point off the plot.
    item->setLines({{pen, true, {{0, 0}, {8, 3}, {20, 3}}}});
    item->place(QRectF(0, 0, 80, 50), QPointF(10, 45), QPointF(10, -10));
    QCOMPARE(item->drawn(0).size(), size_t{1});
    QCOMPARE(item->drawn(0).front().at(1), QPointF(90, 15));
    const QImage image = test::renderOnWhite(scene, QSize(100, 50));
    QCOMPARE(image.pixelColor(10, 45), QColor(Qt::red));
    QCOMPARE(image.pixelColor(50, 30), QColor(Qt::red));   // on the line between
    QCOMPARE(image.pixelColor(95, 15), QColor(Qt::white));  // right of the plot: clipped
  }

  void anSvgGetsEachVisibleLine() {
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new PolylineItem;
    scene.addItem(item);
    item->setLines({{QPen(QColor(255, 0, 0)), true, {{10, 10}, {50, 40}, {90, 20}}},
                    {QPen(QColor(0, 255, 0)), false, {{10, 20}, {90, 20}}}});
    item->place(QRectF(0, 0, 100, 50), QPointF(0, 0), QPointF(1, 1));
    const QByteArray text = test::renderSvg(scene, QSize(100, 50));
    QVERIFY(text.contains("#ff0000"));
    QVERIFY(!text.contains("#00ff00"));  // a hidden line is not drawn
    QVERIFY(!text.contains("<image"));
  }

  void nonFiniteValuesBreakTheLine() {
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new PolylineItem;
    scene.addItem(item);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    item->setLines({{QPen(Qt::blue), true, {{0, 10}, {20, 20}, {nan, 5}, {40, 10}, {60, inf}, {80, 1e300}, {90, 30}}}});
    item->place(QRectF(0, 0, 100, 50), QPointF(0, 0), QPointF(1, 1));
    // (0,10)-(20,20) | (40,10) | (80,1e300)-(90,30): the non-finite points break it, none is drawn.
    QCOMPARE(item->drawn(0).size(), size_t{3});
    QCOMPARE(item->drawn(0)[1].size(), qsizetype{1});
    test::renderOnWhite(scene, QSize(100, 50));  // no crash, no sanitizer report
    item->place(QRectF(), {}, {});
    test::renderOnWhite(scene, QSize(100, 50));  // nothing to draw in
  }
};

QTEST_MAIN(PolylineItemTest)
#include "polyline_item_test.moc"
