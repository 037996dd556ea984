#include "views/timeline_style.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/axis_scale.h"
#include "views/qt_format.h"

namespace sawtooth::views {

QPen seriesPen(SeriesKind kind, int device_index) {
  // Allocated solid and saturated, reserved dashed in a contrasting hue, per device drawn.
  static const std::pair<QColor, QColor> pairs[] = {
      {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e)},  // blue, orange
      {QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd)},  // green, purple
      {QColor(0x17, 0xbe, 0xcf), QColor(0x8c, 0x56, 0x4b)},  // cyan, brown
      {QColor(0xe3, 0x77, 0xc2), QColor(0xbc, 0xbd, 0x22)},  // pink, olive
  };
  const auto& [allocated, reserved] = pairs[static_cast<size_t>(device_index) % std::size(pairs)];
  switch (kind) {
    case SeriesKind::Allocated: return QPen(allocated, 1.7);
    case SeriesKind::Reserved: return QPen(reserved, 1.3, Qt::DashLine);
    case SeriesKind::Driver: return QPen(QColor(0x6d, 0x4c, 0x41), 1.2, Qt::DashDotLine);
    case SeriesKind::DeviceUsed: return QPen(QColor(0x7f, 0x7f, 0x7f), 1.2, Qt::DotLine);
  }
  return QPen(allocated);
}

QPen fastLinePen(const QPen& pen) {
  QPen out(pen);
  out.setCosmetic(true);
  out.setWidthF(1.0);
  if (pen.style() != Qt::SolidLine && pen.style() != Qt::NoPen) {
    // Dash lengths are in pen widths: scaled so that the dashes keep their length on screen.
    QList<qreal> pattern = pen.dashPattern();
    for (qreal& v : pattern) v *= std::max<qreal>(1.0, pen.widthF());
    out.setDashPattern(pattern);
  }
  return out;
}

QColor categoryColor(Category category) {
  switch (category) {
    case Category::Unknown: return QColor(0xb0, 0xb0, 0xb0);
    case Category::Parameter: return QColor(0x2e, 0x7d, 0x32);
    case Category::Gradient: return QColor(0x15, 0x65, 0xc0);
    case Category::OptimizerState: return QColor(0xda, 0xa5, 0x20);
    case Category::Input: return QColor(0x42, 0x42, 0x42);
    case Category::Activation: return QColor(0xd3, 0x2f, 0x2f);
    case Category::Temporary: return QColor(0x95, 0x75, 0xcd);
    case Category::AutogradDetail: return QColor(0x41, 0x69, 0xe1);
  }
  return Qt::gray;
}

QString categoryTitle(Category c) { return toQString(name(c)).replace(QLatin1Char('_'), QLatin1Char(' ')); }

QColor peakColor() { return QColor(0xd6, 0x27, 0x28); }
QColor growthColor() { return QColor(0xd6, 0x27, 0x28); }

QColor shrinkColor() { return QColor(0x2c, 0xa0, 0x2c); }

QColor oomColor() { return QColor(0xb7, 0x1c, 0x1c); }

void applyTicks(QValueAxis* axis, double lo, double hi, int ticks, bool integral) {
  double step = niceStep(hi - lo, ticks);
  if (integral) step = std::max(1.0, std::round(step));
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(std::floor(lo / step) * step);
  axis->setTickInterval(step);
  // Qt lays the axis out again on each call, the same format or not.
  const QString format = QStringLiteral("%.%1f").arg(decimalsFor(step));
  if (axis->labelFormat() != format) axis->setLabelFormat(format);
}

}  // namespace sawtooth::views
