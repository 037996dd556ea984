// The band under the timeline fed with the module test trace's top-level blocks
// (tests/core/module_trace.h): each span where the visible range puts it, on the time and the
// index axis, inside the timeline's plot edges; the block and pass under the pointer; hidden for
// a trace without modules.
#include <QImage>
#include <QtTest>

#include "core/analysis/module_band.h"
#include "tests/core/module_trace.h"
#include "views/module_band.h"

using namespace sawtooth;
using namespace sawtooth::views;

class ModuleBandTest : public QObject {
  Q_OBJECT
 private slots:
  void placesTheBlocksWhereTheTimelineHasThem() {
    const TraceAnalysis analysis(std::make_shared<const Trace>(test::moduleTrace()));
    ModuleBandView band;
    band.resize(220, 24);
    band.setBand(std::make_shared<const ModuleBand>(moduleBand(analysis, 0)));
    QVERIFY(!band.isHidden());
    // Time 0 .. 100 ns over pixels 10 .. 210: 2 px per ns.
    band.setPlotEdges(10, 210);
    band.setWindow(0, 100, true);
    QCOMPARE(band.textAt(10 + 2 * 15), QStringLiteral("Net.0 · forward"));   // 11 .. 20
    QCOMPARE(band.textAt(10 + 2 * 30), QStringLiteral("Net.2 · forward"));   // 26 .. 35
    QCOMPARE(band.textAt(10 + 2 * 62), QStringLiteral("Net.1 · backward"));  // 61 .. 65
    QCOMPARE(band.textAt(10 + 2 * 45), QString());                            // nothing runs at 45
    QCOMPARE(band.textAt(5), QString());                                      // left of the plot
    // Zoomed to 60 .. 70: Net.0's backward (66 .. 75) runs on to the plot's right edge.
    band.setWindow(60, 70, true);
    QCOMPARE(band.textAt(209), QStringLiteral("Net.0 · backward"));
    // On the index axis: Net.0's forward spans allocator events 2 .. 5.
    band.setWindow(0, 10, false);
    QCOMPARE(band.textAt(10 + 20 * 3), QStringLiteral("Net.0 · forward"));
    QCOMPARE(band.textAt(10 + 20 * 1), QString());
    // It paints its spans in the passes' colours.
    band.setWindow(0, 100, true);
    QImage image(band.size(), QImage::Format_ARGB32);
    image.fill(Qt::black);
    band.render(&image);
    QCOMPARE(image.pixelColor(10 + 2 * 13, 12), QColor(76, 134, 198));   // forward
    QCOMPARE(image.pixelColor(10 + 2 * 63, 12), QColor(230, 145, 56));   // backward
  }

  void hiddenWithoutModules() {
    const TraceAnalysis analysis(std::make_shared<const Trace>(Trace{}));
    ModuleBandView band;
    band.setBand(std::make_shared<const ModuleBand>(moduleBand(analysis, 0)));
    QVERIFY(band.isHidden());
    QCOMPARE(band.textAt(5), QString());
  }
};

QTEST_MAIN(ModuleBandTest)
#include "module_band_test.moc"
