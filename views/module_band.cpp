#include "views/module_band.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace sawtooth::views {
namespace {

QColor passColour(Pass pass) {
  switch (pass) {
    case Pass::Backward: return QColor(230, 145, 56);
    case Pass::Recompute: return QColor(142, 104, 173);
    default: return QColor(76, 134, 198);
  }
}

}  // namespace

ModuleBandView::ModuleBandView(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(tr("Which top-level block of the model runs: forward blue, backward orange, recompute purple"));
  hide();
}

QSize ModuleBandView::sizeHint() const { return {400, fontMetrics().height() + 8}; }

void ModuleBandView::setBand(std::shared_ptr<const ModuleBand> band) {
  band_ = std::move(band);
  setFixedHeight(sizeHint().height());
  setVisible(band_ && !band_->spans.empty());
  update();
}

void ModuleBandView::setWindow(double lo, double hi, bool by_time) {
  lo_ = lo;
  hi_ = hi > lo ? hi : lo + 1;
  by_time_ = by_time;
  update();
}

void ModuleBandView::setPlotEdges(int left, int right) {
  left_ = left;
  right_ = right;
  update();
}

std::pair<double, double> ModuleBandView::pixels(const BandSpan& span) const {
  const double right = right_ < 0 ? width() : right_;
  const double scale = (right - left_) / (hi_ - lo_);
  const double b = by_time_ ? static_cast<double>(span.begin_ns) : span.begin_index;
  const double e = by_time_ ? static_cast<double>(span.end_ns) : span.end_index;
  double x0 = left_ + (b - lo_) * scale, x1 = left_ + (e - lo_) * scale;
  x1 = std::max(x1, x0 + 1);  // a span shorter than a pixel still shows
  return {std::max<double>(x0, left_), std::min(x1, right)};
}

const BandSpan* ModuleBandView::spanAt(int x) const {
  if (!band_) return nullptr;
  const BandSpan* found = nullptr;
  for (const BandSpan& s : band_->spans) {
    const auto [x0, x1] = pixels(s);
    if (x1 > x0 && x >= x0 && x < x1) found = &s;
  }
  return found;
}

QString ModuleBandView::textAt(int x) const {
  const BandSpan* s = spanAt(x);
  if (!s) return {};
  return QStringLiteral("%1 · %2").arg(QString::fromStdString(band_->blocks[s->block].name),
                                       QString::fromUtf8(name(s->pass).data(), static_cast<int>(name(s->pass).size())));
}

bool ModuleBandView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = textAt(help->pos().x());
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

void ModuleBandView::paintEvent(QPaintEvent*) {
  if (!band_) return;
  QPainter p(this);
  const QRect area = rect().adjusted(0, 2, 0, -2);
  for (const BandSpan& s : band_->spans) {
    const auto [x0, x1] = pixels(s);
    if (x1 <= x0) continue;
    const QRectF r(x0, area.top(), x1 - x0, area.height());
    p.fillRect(r, passColour(s.pass));
    if (r.width() > 3) {
      p.setPen(QColor(255, 255, 255, 160));
      p.drawLine(r.topLeft(), r.bottomLeft());
    }
    const QString label = QString::fromStdString(band_->blocks[s.block].label);
    if (r.width() > fontMetrics().horizontalAdvance(label) + 6) {
      p.setPen(Qt::white);
      p.drawText(r, Qt::AlignCenter, label);
    }
  }
}

}  // namespace sawtooth::views
