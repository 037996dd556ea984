#pragma once
// How the timeline looks: a colour pair per device drawn (allocated and reserved in clearly
// different hues), the driver and device-used lines, the category colours, and the axes' ticks.

#include <QColor>
#include <QPen>
#include <QValueAxis>

#include "core/analysis/series.h"

namespace sawtooth::views {

// `device_index`: the device's position among those drawn (the first gets blue and orange).
QPen seriesPen(SeriesKind kind, int device_index);
// The same line as `pen` (colour, dashes of the same length in pixels), cosmetic and one pixel
// wide: Qt's raster engine draws such a pen straight into the image (its cosmetic stroker), where a
// wider one is first stroked into an outline and that outline filled — 10-50 times slower for a line
// of two points per pixel column, whose columns of min/max are tall vertical strokes.
QPen fastLinePen(const QPen& pen);
QColor categoryColor(Category category);
QString categoryTitle(Category category);  // "optimizer state"
QColor peakColor();
QColor oomColor();
// A change that grew (more memory: worse) and one that shrank, in the diff's chart and table.
QColor growthColor();
QColor shrinkColor();

// Ticks at a step of 1, 2 or 5 × 10^k, about `ticks` intervals over [lo, hi]; whole numbers only
// when `integral` (an event index).
void applyTicks(QValueAxis* axis, double lo, double hi, int ticks, bool integral);

}  // namespace sawtooth::views
