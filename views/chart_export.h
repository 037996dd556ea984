#pragma once
// Saving any chart view as PNG (at a scale, for high-DPI figures) or SVG (vector).

#include <QChart>
#include <QChartView>
#include <QGraphicsView>
#include <QImage>
#include <QSize>
#include <QString>

namespace sawtooth::views {

bool saveViewPng(QGraphicsView* view, const QString& path, QSize size = {}, qreal scale = 1.0);
bool saveViewSvg(QGraphicsView* view, const QString& path, QSize size = {}, const QString& title = {});
// The drawing alone, on the GUI thread (a view can only be drawn there); encoding and writing the
// file can then happen anywhere (the app does it in a job).
QImage renderViewImage(QGraphicsView* view, QSize size = {}, qreal scale = 1.0);
QByteArray renderViewSvg(QGraphicsView* view, QSize size = {}, const QString& title = {});
// Qt Charts' dark theme under a dark palette, the light one otherwise (call before adding series:
// a theme resets series colours).
void applyPaletteTheme(QChart* chart, const QPalette& palette);
// The palette's colours on a chart and its axes, without a new theme (the series keep theirs).
void applyPaletteColours(QChart* chart, const QPalette& palette);
// Gives the view a new chart (it follows the palette as it changes): themed from the view's palette, no animation, legend below, tight margins.
QChart* installThemedChart(QChartView* view);

// Picks PNG or SVG from the file name's suffix.
bool saveViewImage(QGraphicsView* view, const QString& path, QSize size = {});

}  // namespace sawtooth::views
