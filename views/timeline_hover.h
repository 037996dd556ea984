#pragma once
// The timeline's hover: a dashed line at the event under the pointer and a panel with the event's
// details (core/analysis/event_details.h). The panel is a child label of the view, not a QToolTip:
// the graphics view answers a resting pointer's tool-tip event by hiding any tooltip it did not
// set, which made the details vanish a second after the pointer stopped.

#include <QChart>
#include <QGraphicsLineItem>
#include <QGraphicsView>
#include <QLabel>

#include "core/analysis/event_details.h"

namespace sawtooth::views {

QString eventDetailsHtml(const EventDetails& details);

class TimelineHover {
 public:
  TimelineHover(QGraphicsView* view, QChart* chart);

  // `x_chart`: the line's x in chart coordinates; `pointer`: in view (viewport) coordinates.
  void show(qreal x_chart, const QRectF& plot, const QPoint& pointer, const QString& html);
  void hide();
  bool isVisible() const { return panel_->isVisible(); }
  QString text() const { return panel_->text(); }

 private:
  QGraphicsView* view_;
  QGraphicsLineItem* line_;
  QLabel* panel_;
};

}  // namespace sawtooth::views
