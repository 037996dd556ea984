#include "views/widget_export.h"

#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QPainter>
#include <QSvgGenerator>

namespace sawtooth::views {

bool saveWidgetImage(QWidget* widget, const QString& path, QSize size) {
  if (!size.isValid()) size = widget->size();
  const QRegion part(QRect(QPoint(0, 0), size));
  if (size.isEmpty()) return false;
  if (QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setDescription(QStringLiteral("Exported by Sawtooth"));
    QPainter painter;
    if (!painter.begin(&generator)) return false;
    widget->render(&painter, QPoint(), part);
    return painter.end();
  }
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(widget->palette().color(QPalette::Base));
  {
    QPainter painter(&image);
    widget->render(&painter, QPoint(), part);
  }
  QImageWriter writer(path, "png");
  return writer.write(image);
}

}  // namespace sawtooth::views
