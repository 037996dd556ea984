#pragma once
// A graphics scene drawn as the app's targets draw it: into an image on white (raster, at a pixel
// ratio) and into an SVG (vector), for the tests of items that paint each differently; and how much
// two pictures differ.

#include <QBuffer>
#include <QColor>
#include <QRect>
#include <cstdlib>
#include <QByteArray>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

namespace sawtooth::test {

inline QImage renderOnWhite(QGraphicsScene& scene, const QSize& size, qreal pixel_ratio = 1) {
  QImage image((QSizeF(size) * pixel_ratio).toSize(), QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(pixel_ratio);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    scene.render(&painter, QRectF(QPointF(0, 0), size), QRectF(QPointF(0, 0), size));
  }
  return image;
}

// The share of `plot`'s pixels whose colour differs between a and b by more than `tolerance` in a
// channel (an item's picture against Qt's own drawing of the same data).
inline double differingShare(const QImage& a, const QImage& b, const QRect& plot, int tolerance) {
  qint64 differ = 0, all = 0;
  for (int y = plot.top(); y <= plot.bottom(); ++y)
    for (int x = plot.left(); x <= plot.right(); ++x) {
      const QColor p = a.pixelColor(x, y), q = b.pixelColor(x, y);
      ++all;
      if (std::abs(p.red() - q.red()) > tolerance || std::abs(p.green() - q.green()) > tolerance ||
          std::abs(p.blue() - q.blue()) > tolerance)
        ++differ;
    }
  return all ? static_cast<double>(differ) / static_cast<double>(all) : 1.0;
}

inline QByteArray renderSvg(QGraphicsScene& scene, const QSize& size) {
  QBuffer svg;
  svg.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&svg);
  generator.setSize(size);
  {
    QPainter painter(&generator);
    scene.render(&painter);
  }
  return svg.data();
}

}  // namespace sawtooth::test
