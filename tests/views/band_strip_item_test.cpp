// The timeline's phase bands drawn as one item (views/band_strip_item.h): on a raster target one
// image, blended as the rectangles were (later bands over earlier ones), and one rectangle a band in
// an SVG; in the timeline, all its bands are that one item.
#include <QGraphicsScene>
#include <QImage>
#include <QtTest>

#include "tests/views/scene_render.h"
#include "tests/views/view_test_data.h"
#include "views/band_strip_item.h"
#include "views/timeline_chart.h"

using namespace sawtooth;
using namespace sawtooth::views;

class BandStripItemTest : public QObject {
  Q_OBJECT
 private slots:
  void blendsEachBandOverThoseBeforeItDownThePlot() {
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new BandStripItem;
    scene.addItem(item);
    const QColor red(255, 0, 0, 128), blue(0, 0, 255, 128);
    item->setBands(QRectF(10, 5, 80, 40), {{20, 40, red}, {30, 60, blue}});
    const QImage image = test::renderOnWhite(scene, QSize(100, 50));
    // Outside the plot and between the bands: the background.
    QCOMPARE(image.pixelColor(5, 20), QColor(Qt::white));
    QCOMPARE(image.pixelColor(25, 2), QColor(Qt::white));
    QCOMPARE(image.pixelColor(70, 20), QColor(Qt::white));
    // Red alone, blue alone, blue over red — at the plot's top and bottom rows alike.
    for (int y : {5, 25, 44}) {
      const QColor r = image.pixelColor(25, y), b = image.pixelColor(50, y), both = image.pixelColor(35, y);
      QVERIFY2(r.red() == 255 && r.green() < 140 && r.blue() < 140, qPrintable(r.name()));
      QVERIFY2(b.blue() == 255 && b.red() < 140 && b.green() < 140, qPrintable(b.name()));
      QVERIFY2(both.blue() > both.red() && both.red() > both.green(), qPrintable(both.name()));
    }
    // A change of bands is painted: none left.
    item->setBands(QRectF(10, 5, 80, 40), {});
    QCOMPARE(test::renderOnWhite(scene, QSize(100, 50)).pixelColor(25, 20), QColor(Qt::white));
  }

  void anSvgGetsOneRectangleABand() {
    QGraphicsScene scene(0, 0, 100, 50);
    auto* item = new BandStripItem;
    scene.addItem(item);
    item->setBands(QRectF(10, 5, 80, 40), {{20, 40, QColor(255, 0, 0, 128)}, {50, 60, QColor(0, 0, 255, 128)}});
    const QByteArray text = test::renderSvg(scene, QSize(100, 50));
    QVERIFY(!text.contains("<image"));
    QVERIFY2(text.contains("#ff0000") && text.contains("#0000ff"), text.constData());
  }

  void theTimelinesBandsAreOneItem() {
    // Each band a rectangle of its own cost a zoom ~770 waits on Qt's raster threads (the header).
    TimelineChart chart;
    chart.resize(1400, 600);
    chart.show();
    chart.setAnalysis(test::sample("anatomy.sawtooth")->analysis);
    chart.setVisibleDevices({0});
    QVERIFY2(chart.bandsShown() > 20, qPrintable(QString::number(chart.bandsShown())));
    int fills = 0;
    for (QGraphicsItem* item : chart.scene()->items())
      if (item->zValue() == 0.5 && item->isVisible()) ++fills;  // the bands' z (timeline_bands.cpp)
    QCOMPARE(fills, 1);
  }
};

QTEST_MAIN(BandStripItemTest)
#include "band_strip_item_test.moc"
