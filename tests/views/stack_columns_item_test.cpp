// The timeline's stacked categories drawn by one item a device (views/stack_columns_item.h): the
// same picture as Qt Charts' area polygons, on a dense window and on a sparse one, and in an SVG the
// polygons themselves.
#include <QAreaSeries>
#include <QGraphicsScene>
#include <QImage>
#include <QtTest>
#include <limits>

#include "tests/views/scene_render.h"
#include "tests/views/view_test_data.h"
#include "views/polyline_item.h"
#include "views/stack_columns_item.h"
#include "views/timeline_chart.h"

using namespace sawtooth;
using namespace sawtooth::views;

namespace {

// The anatomy sample's GPU with its categories stacked.
void showStackedAnatomy(TimelineChart& chart) {
  chart.resize(900, 500);
  chart.show();
  chart.setAnalysis(test::sample("anatomy.sawtooth")->analysis);
  chart.setVisibleDevices({0});
  chart.setStackedCategories(true);
}

std::vector<StackColumnsItem*> stackItems(TimelineChart& chart) {
  std::vector<StackColumnsItem*> out;
  for (QGraphicsItem* item : chart.scene()->items())
    if (auto* s = dynamic_cast<StackColumnsItem*>(item)) out.push_back(s);
  return out;
}

}  // namespace

class StackColumnsItemTest : public QObject {
  Q_OBJECT
 private slots:
  void oneItemADeviceAndTheAreasPaintNothing() {
    // Qt's scanline fill of 8 jagged polygons cost a zoom 100–150 ms (the header).
    TimelineChart chart;
    showStackedAnatomy(chart);
    QCOMPARE(stackItems(chart).size(), size_t{1});
    QVERIFY(!stackItems(chart).front()->empty());
    QCOMPARE(chart.categoryArea(0, Category::Activation)->opacity(), 0.0);
    chart.setStackedCategories(false);
    QVERIFY(stackItems(chart).empty());
  }

  void looksAsQtsPolygonsDenseAndSparse() {
    TimelineChart chart;
    showStackedAnatomy(chart);
    for (auto [lo, hi] : {std::pair{0.0, 6000.0}, std::pair{1000.0, 1100.0}}) {
      chart.zoomTo(lo, hi);
      // The lines over the areas in both pictures (Qt's areas share the lines' z, and come after).
      for (QGraphicsItem* item : chart.scene()->items())
        if (dynamic_cast<PolylineItem*>(item)) item->setZValue(5);
      QCoreApplication::processEvents();
      const QImage ours = chart.grab().toImage().convertToFormat(QImage::Format_RGB32);
      // Qt's own: the areas given the layers' tops and painted, the item hidden.
      for (StackColumnsItem* item : stackItems(chart)) item->setVisible(false);
      for (int c = 0; c < kCategoryCount; ++c) {
        QAreaSeries* area = chart.categoryArea(0, static_cast<Category>(c));
        area->upperSeries()->replace(chart.categoryTop(0, static_cast<Category>(c)));
        area->setOpacity(1.0);
      }
      QCoreApplication::processEvents();
      const QImage qts = chart.grab().toImage().convertToFormat(QImage::Format_RGB32);
      for (StackColumnsItem* item : stackItems(chart)) item->setVisible(true);
      for (int c = 0; c < kCategoryCount; ++c) {
        QAreaSeries* area = chart.categoryArea(0, static_cast<Category>(c));
        area->upperSeries()->clear();
        area->setOpacity(0.0);
      }
      const QRect plot = chart.mapFromScene(chart.chart()->mapToScene(chart.chart()->plotArea())).boundingRect();
      const double share = test::differingShare(ours, qts, plot.adjusted(1, 1, -1, -1), 48);
      QVERIFY2(share < 0.02, qPrintable(QStringLiteral("%1..%2: %3 of the plot differs").arg(lo).arg(hi).arg(share)));
    }
  }

  void anSvgGetsEachLayersPolygon() {
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new StackColumnsItem;
    scene.addItem(item);
    StackColumnsItem::Layer low{QColor(255, 0, 0, 150), true, {40, 30, 40}};
    StackColumnsItem::Layer hidden{QColor(0, 255, 0, 150), false, {30, 20, 30}};
    StackColumnsItem::Layer high{QColor(0, 0, 255, 150), true, {20, 10, 20}};
    item->setStack(QRectF(0, 0, 100, 50), {10, 50, 90}, 45, {low, hidden, high});
    const QByteArray text = test::renderSvg(scene, QSize(100, 50));
    QVERIFY(!text.contains("<image"));
    QVERIFY(text.contains("#ff0000") && text.contains("#0000ff"));
    QVERIFY(!text.contains("#00ff00"));  // a hidden layer is not drawn
  }

  void rasterColumnsBetweenTheirBottomsAndTops() {
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new StackColumnsItem;
    scene.addItem(item);
    // Two layers over x 10..90: red from the baseline (y 45) to 30, blue from 30 up to 10.
    item->setStack(QRectF(0, 0, 100, 50), {10, 90}, 45,
                   {{QColor(255, 0, 0), true, {30, 30}}, {QColor(0, 0, 255), true, {10, 10}}});
    const QImage image = test::renderOnWhite(scene, QSize(100, 50));
    QCOMPARE(image.pixelColor(50, 40), QColor(Qt::red));
    QCOMPARE(image.pixelColor(50, 20), QColor(Qt::blue));
    QCOMPARE(image.pixelColor(50, 5), QColor(Qt::white));   // above the top
    QCOMPARE(image.pixelColor(50, 47), QColor(Qt::white));  // below the baseline
    QCOMPARE(image.pixelColor(5, 40), QColor(Qt::white));   // left of the first point
    QCOMPARE(image.pixelColor(95, 40), QColor(Qt::white));  // right of the last
  }

  void rasterColumnsAtTheTargetsPixelRatio() {
    // A high-DPI target gets the layers in its own pixels: a top half a unit down shows as such.
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new StackColumnsItem;
    scene.addItem(item);
    item->setStack(QRectF(0, 0, 100, 50), {0, 100}, 50, {{QColor(255, 0, 0), true, {30.5, 30.5}}});
    const QImage image = test::renderOnWhite(scene, QSize(100, 50), 2);
    QCOMPARE(image.pixelColor(100, 60), QColor(Qt::white));
    QCOMPARE(image.pixelColor(100, 61), QColor(Qt::red));
  }

  void nonFiniteValuesDrawNothingWrong() {
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new StackColumnsItem;
    scene.addItem(item);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    item->setStack(QRectF(0, 0, 100, 50), {0, 50, 100}, 50,
                   {{QColor(255, 0, 0), true, {nan, 30, -inf}}, {QColor(0, 0, 255), true, {inf, 1e300, nan}}});
    test::renderOnWhite(scene, QSize(100, 50));  // no crash, no sanitizer report
  }
};

QTEST_MAIN(StackColumnsItemTest)
#include "stack_columns_item_test.moc"
