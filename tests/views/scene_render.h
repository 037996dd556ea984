#pragma once
// A graphics scene drawn as the app's targets draw it: into an image on white (raster, at a pixel
// ratio) and into an SVG (vector), for the tests of items that paint each differently.

#include <QBuffer>
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
