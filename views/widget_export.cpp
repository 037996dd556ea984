#include "views/widget_export.h"

#include <QBuffer>
#include <QPainter>
#include <QSvgGenerator>

namespace sawtooth::views {
namespace {

QSize partOf(const PaintedWidget& painted) {
  if (!painted.widget) return {};
  return painted.size.isValid() ? painted.size : painted.widget->size();
}

}  // namespace

QImage renderWidgetImage(const PaintedWidget& painted) {
  const QSize size = partOf(painted);
  if (size.isEmpty()) return {};
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(painted.widget->palette().color(QPalette::Base));
  QPainter painter(&image);
  painted.widget->render(&painter, QPoint(), QRegion(QRect(QPoint(0, 0), size)));
  return image;
}

QByteArray renderWidgetSvg(const PaintedWidget& painted, const QString& title) {
  const QSize size = partOf(painted);
  if (size.isEmpty()) return {};
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setTitle(title);
  generator.setDescription(QStringLiteral("Exported by Sawtooth"));
  QPainter painter;
  if (!painter.begin(&generator)) return {};
  painted.widget->render(&painter, QPoint(), QRegion(QRect(QPoint(0, 0), size)));
  if (!painter.end()) return {};
  return buffer.data();
}

}  // namespace sawtooth::views
