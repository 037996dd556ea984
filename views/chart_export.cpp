#include "views/chart_export.h"

#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QPainter>
#include <QSvgGenerator>

namespace sawtooth::views {

bool saveViewPng(QGraphicsView* view, const QString& path, QSize size, qreal scale) {
  if (size.isValid() && size != view->size()) view->resize(size);
  QImage image(view->size() * scale, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(scale);
  image.fill(view->palette().color(QPalette::Base));
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    view->render(&painter);
  }
  QImageWriter writer(path, "png");
  return writer.write(image);
}

bool saveViewSvg(QGraphicsView* view, const QString& path, QSize size, const QString& title) {
  if (size.isValid() && size != view->size()) view->resize(size);
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(view->size());
  generator.setViewBox(QRect(QPoint(0, 0), view->size()));
  generator.setTitle(title);
  generator.setDescription(QStringLiteral("Exported by Sawtooth"));
  QPainter painter;
  if (!painter.begin(&generator)) return false;
  view->render(&painter);
  return painter.end();
}

void applyPaletteTheme(QChart* chart, const QPalette& palette) {
  const bool dark = palette.color(QPalette::Window).lightness() < 128;
  chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart->setBackgroundBrush(palette.color(QPalette::Base));
  chart->setTitleBrush(palette.color(QPalette::WindowText));
  chart->legend()->setLabelColor(palette.color(QPalette::WindowText));
}

bool saveViewImage(QGraphicsView* view, const QString& path, QSize size) {
  if (QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0)
    return saveViewSvg(view, path, size);
  return saveViewPng(view, path, size);
}

QChart* installThemedChart(QChartView* view) {
  auto* chart = new QChart();
  chart->setAnimationOptions(QChart::NoAnimation);
  applyPaletteTheme(chart, view->palette());
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(6, 6, 6, 6));
  view->setChart(chart);
  view->setRenderHint(QPainter::Antialiasing, true);
  return chart;
}

}  // namespace sawtooth::views
