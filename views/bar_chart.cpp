#include "views/bar_chart.h"

#include <QBarCategoryAxis>
#include <QLegendMarker>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

#include "views/chart_export.h"

namespace sawtooth::views {

BarChart::BarChart(QWidget* parent) : QChartView(parent) {
  auto* c = installThemedChart(this);
  connect(c, &QChart::plotAreaChanged, this, [this] { placeAnnotations(); });
}

void BarChart::setData(const QString& title, const QString& value_title, const QStringList& categories,
                       const QList<BarSetData>& sets, const QStringList& annotations) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) c->removeAxis(a), delete a;
  qDeleteAll(labels_);
  labels_.clear();
  categories_ = categories;
  annotations_ = annotations;
  references_.clear();
  tooltips_.clear();
  whiskers_ = 0;
  c->setTitle(title);

  series_ = new QBarSeries();
  group_tops_ = QList<qreal>(categories.size(), 0.0);
  for (const BarSetData& set_data : sets) {
    auto* set = new QBarSet(set_data.name);
    set->setColor(set_data.color);
    set->setBorderColor(set_data.color.darker(120));
    for (qsizetype i = 0; i < set_data.values.size(); ++i) {
      set->append(set_data.values[i]);
      qreal top = set_data.values[i];
      if (set_data.whiskers && i < set_data.whiskers->size()) top = std::max(top, set_data.whiskers->at(i).second);
      if (i < group_tops_.size()) group_tops_[i] = std::max(group_tops_[i], top);
    }
    series_->append(set);
    tooltips_.append(set_data.tooltips);
  }
  c->addSeries(series_);
  auto* x = new QBarCategoryAxis();
  x->append(categories);
  auto* y = new QValueAxis();
  y->setTitleText(value_title);
  const qreal top = group_tops_.isEmpty() ? 1.0 : *std::max_element(group_tops_.begin(), group_tops_.end());
  y->setRange(0, std::max<qreal>(top * 1.22, 1e-9));
  y->applyNiceNumbers();
  y->setLabelFormat(top >= 10 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  series_->attachAxis(x);
  series_->attachAxis(y);

  // Min–max whiskers, drawn as an "I" per category (one polyline each).
  for (const BarSetData& set_data : sets) {
    if (!set_data.whiskers) continue;
    for (qsizetype i = 0; i < set_data.whiskers->size(); ++i) {
      const auto [lo, hi] = set_data.whiskers->at(i);
      const qreal cx = static_cast<qreal>(i), w = 0.08;
      auto* line = new QLineSeries();
      line->append({{cx - w, lo}, {cx + w, lo}, {cx, lo}, {cx, hi}, {cx - w, hi}, {cx + w, hi}});
      line->setPen(QPen(palette().color(QPalette::WindowText), 1.4));
      c->addSeries(line);
      line->attachAxis(x);
      line->attachAxis(y);
      ++whiskers_;
    }
  }
  for (QLegendMarker* m : c->legend()->markers())
    if (qobject_cast<QLineSeries*>(m->series())) m->setVisible(false);

  connect(series_, &QBarSeries::hovered, this, [this](bool on, int index, QBarSet* set) {
    if (!on) return QToolTip::hideText();
    const int s = static_cast<int>(series_->barSets().indexOf(set));
    if (s >= 0 && s < tooltips_.size() && index < tooltips_[s].size())
      QToolTip::showText(QCursor::pos() + QPoint(12, 12), tooltips_[s][index], this);
  });
  for (const QString& text : annotations) {
    auto* label = new QGraphicsSimpleTextItem(text, c);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    label->setBrush(palette().color(QPalette::WindowText));
    label->setZValue(20);
    labels_.append(label);
  }
  placeAnnotations();
}

void BarChart::placeAnnotations() {
  if (!series_) return;
  for (qsizetype i = 0; i < labels_.size() && i < group_tops_.size(); ++i) {
    const QPointF anchor = chart()->mapToPosition(QPointF(static_cast<qreal>(i), group_tops_[i]), series_);
    const QRectF r = labels_[i]->boundingRect();
    labels_[i]->setPos(anchor.x() - r.width() / 2, anchor.y() - r.height() - 4);
  }
}

void BarChart::addReferenceLine(const QString& label, qreal value, const QColor& color) {
  if (!series_) return;
  auto* line = new QLineSeries();
  line->setName(label);
  line->setPen(QPen(color, 1.6, Qt::DashLine));
  const qreal right = static_cast<qreal>(std::max<qsizetype>(categories_.size(), 1)) - 0.5;
  line->append({{-0.5, value}, {right, value}});
  chart()->addSeries(line);
  for (QAbstractAxis* axis : series_->attachedAxes()) line->attachAxis(axis);
  // Keep the line in view.
  for (QAbstractAxis* axis : series_->attachedAxes())
    if (auto* y = qobject_cast<QValueAxis*>(axis); y && value * 1.1 > y->max()) {
      y->setMax(value * 1.15);
      y->applyNiceNumbers();
    }
  references_ << label;
  placeAnnotations();
}

QBarSet* BarChart::barSet(int index) const {
  if (!series_ || index < 0 || index >= series_->count()) return nullptr;
  return series_->barSets().at(index);
}

void BarChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  placeAnnotations();
}

bool BarChart::savePng(const QString& path, QSize size) { return saveViewPng(this, path, size); }
bool BarChart::saveSvg(const QString& path, QSize size) { return saveViewSvg(this, path, size, chart()->title()); }

}  // namespace sawtooth::views
