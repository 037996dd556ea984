#pragma once
// Drawing a painted widget (the segment map, the flame graph) for export, like the charts
// (chart_export.h): the drawing happens here, on the GUI thread; encoding and writing the file
// happen in the app's jobs.

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>
#include <QWidget>

namespace sawtooth::views {

// A widget to export and the top-left part of it to draw (its content, when a scroll area has
// stretched it); an empty size: the whole widget.
struct PaintedWidget {
  QWidget* widget = nullptr;
  QSize size;
};

QImage renderWidgetImage(const PaintedWidget& painted);
QByteArray renderWidgetSvg(const PaintedWidget& painted, const QString& title = {});

}  // namespace sawtooth::views
