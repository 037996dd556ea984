#pragma once
// Saving a painted widget (the segment map, the flame graph) as PNG or SVG, like the charts: the
// widget renders itself at its own size into an image or an SVG generator.

#include <QString>
#include <QWidget>

namespace sawtooth::views {

// Picks PNG or SVG from the file name's suffix. `size`: the top-left part of the widget to save
// (its content, when a scroll area has stretched it); empty: the whole widget.
bool saveWidgetImage(QWidget* widget, const QString& path, QSize size = {});

}  // namespace sawtooth::views
