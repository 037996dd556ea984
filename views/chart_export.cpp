#include "views/chart_export.h"

#include <QBuffer>
#include <QAbstractAxis>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QPainter>
#include <QSvgGenerator>

namespace sawtooth::views {

QImage renderViewImage(QGraphicsView* view, QSize size, qreal scale) {
  if (size.isValid() && size != view->size()) view->resize(size);
  QImage image(view->size() * scale, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(scale);
  image.fill(view->palette().color(QPalette::Base));
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  view->render(&painter);
  return image;
}

QByteArray renderViewSvg(QGraphicsView* view, QSize size, const QString& title) {
  if (size.isValid() && size != view->size()) view->resize(size);
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(view->size());
  generator.setViewBox(QRect(QPoint(0, 0), view->size()));
  generator.setTitle(title);
  generator.setDescription(QStringLiteral("Exported by Sawtooth"));
  QPainter painter;
  if (!painter.begin(&generator)) return {};
  view->render(&painter);
  if (!painter.end()) return {};
  return buffer.data();
}

bool saveViewPng(QGraphicsView* view, const QString& path, QSize size, qreal scale) {
  QImageWriter writer(path, "png");
  return writer.write(renderViewImage(view, size, scale));
}

bool saveViewSvg(QGraphicsView* view, const QString& path, QSize size, const QString& title) {
  const QByteArray svg = renderViewSvg(view, size, title);
  QFile f(path);
  return !svg.isEmpty() && f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(svg) == svg.size();
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

void applyPaletteColours(QChart* chart, const QPalette& palette) {
  const QColor text = palette.color(QPalette::WindowText);
  QColor grid = text;
  grid.setAlpha(45);
  chart->setBackgroundBrush(palette.color(QPalette::Base));
  chart->setTitleBrush(text);
  chart->legend()->setLabelColor(text);
  for (QAbstractAxis* axis : chart->axes()) {
    axis->setLabelsColor(text);
    axis->setTitleBrush(text);
    axis->setGridLineColor(grid);
    axis->setLinePenColor(palette.color(QPalette::Mid));
  }
}

namespace {

// Follows the application's palette (light or dark chosen while the app runs) without a new
// theme, which would reset the colours given to the series.
class ChartPaletteFollower : public QObject {
 public:
  explicit ChartPaletteFollower(QChartView* view) : QObject(view), view_(view) {}
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::PaletteChange && view_->chart()) applyPaletteColours(view_->chart(), view_->palette());
    return QObject::eventFilter(watched, event);
  }

 private:
  QChartView* view_;
};

}  // namespace

QChart* installThemedChart(QChartView* view) {
  auto* chart = new QChart();
  chart->setAnimationOptions(QChart::NoAnimation);
  applyPaletteTheme(chart, view->palette());
  view->installEventFilter(new ChartPaletteFollower(view));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(6, 6, 6, 6));
  view->setChart(chart);
  view->setRenderHint(QPainter::Antialiasing, true);
  return chart;
}

}  // namespace sawtooth::views
