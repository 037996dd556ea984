#include "views/timeline_hover.h"

#include <QPen>

#include "core/analysis/frame_filter.h"
#include "views/qt_format.h"

namespace sawtooth::views {

QString eventDetailsHtml(const EventDetails& d) {
  const Event& e = d.event;
  QString text = QStringLiteral("<b>%1 %2</b> &nbsp;(%3)<br>")
                     .arg(toQString(name(e.action)), bytesText(e.size), toQString(d.device).toHtmlEscaped());
  if (e.action == Action::Oom) text += QObject::tr("free on device: %1<br>").arg(bytesText(static_cast<qint64>(e.addr)));
  else text += QObject::tr("address %1 · stream %2<br>").arg(addressText(e.addr)).arg(e.stream);
  text += QObject::tr("t = %1").arg(durationText(e.t_ns));
  if (d.index) text += QObject::tr(" · event #%1").arg(*d.index);
  if (d.allocated_after && d.reserved_after)
    text += QObject::tr("<br>allocated %1 · reserved %2").arg(bytesText(*d.allocated_after), bytesText(*d.reserved_after));
  if (!d.category.empty()) text += QObject::tr("<br>category: %1").arg(toQString(d.category));
  if (!d.phase.empty()) text += QObject::tr("<br>phase: %1").arg(toQString(d.phase).toHtmlEscaped());
  if (!d.run.empty()) text += QObject::tr("<br>run: %1").arg(toQString(d.run).toHtmlEscaped());
  if (!d.module.empty())
    text += d.pass.empty() ? QObject::tr("<br>module: %1").arg(toQString(d.module).toHtmlEscaped())
                           : QObject::tr("<br>module: %1 (%2)").arg(toQString(d.module).toHtmlEscaped(), toQString(d.pass));
  if (!d.frames.empty()) text += QObject::tr("<br>frames:");
  for (const Frame& f : d.frames)
    text += QStringLiteral("<br>&nbsp;&nbsp;%1 &nbsp;<i>%2</i>")
                .arg(toQString(f.name).left(90).toHtmlEscaped(), toQString(frameLocation(f)).toHtmlEscaped());
  return text;
}

TimelineHover::TimelineHover(QGraphicsView* view, QChart* chart)
    : view_(view), line_(new QGraphicsLineItem(chart)), panel_(new QLabel(view->viewport())) {
  line_->setPen(QPen(QColor(120, 120, 120, 180), 1, Qt::DashLine));
  line_->setZValue(50);
  line_->hide();
  panel_->setTextFormat(Qt::RichText);
  panel_->setAutoFillBackground(true);
  panel_->setBackgroundRole(QPalette::ToolTipBase);
  panel_->setForegroundRole(QPalette::ToolTipText);
  panel_->setFrameShape(QFrame::Box);
  panel_->setMargin(4);
  panel_->setAttribute(Qt::WA_TransparentForMouseEvents);
  panel_->hide();
}

void TimelineHover::show(qreal x_chart, const QRectF& plot, const QPoint& pointer, const QString& html) {
  line_->setLine(x_chart, plot.top(), x_chart, plot.bottom());
  line_->show();
  panel_->setText(html);
  panel_->adjustSize();
  // Beside the pointer, kept inside the view (to its left or above it near the edges).
  const QSize area = view_->viewport()->size();
  QPoint at = pointer + QPoint(14, 14);
  if (at.x() + panel_->width() > area.width()) at.setX(pointer.x() - 14 - panel_->width());
  if (at.y() + panel_->height() > area.height()) at.setY(pointer.y() - 14 - panel_->height());
  at.setX(std::max(0, at.x()));
  at.setY(std::max(0, at.y()));
  panel_->move(at);
  panel_->show();
  panel_->raise();
}

void TimelineHover::hide() {
  line_->hide();
  panel_->hide();
}

}  // namespace sawtooth::views
