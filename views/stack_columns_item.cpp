#include "views/stack_columns_item.h"

#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace sawtooth::views {

StackColumnsItem::StackColumnsItem(QGraphicsItem* parent) : QGraphicsItem(parent) {}

void StackColumnsItem::setStack(const QRectF& plot, std::vector<double> xs, double baseline, std::vector<Layer> layers) {
  if (plot != plot_) prepareGeometryChange();
  plot_ = plot;
  xs_ = std::move(xs);
  baseline_ = baseline;
  layers_ = std::move(layers);
  image_ = QImage();
  update();
}

double StackColumnsItem::bottomOf(size_t layer, size_t point) const {
  return layer == 0 ? baseline_ : layers_[layer - 1].top[point];
}

const QImage& StackColumnsItem::image(qreal dpr) {
  if (!image_.isNull() && image_.devicePixelRatio() == dpr) return image_;
  // In the target's own pixels (a high-DPI screen's, or an export's scale).
  const int width = std::max(1, static_cast<int>(std::ceil(plot_.width() * dpr)));
  const int height = std::max(1, static_cast<int>(std::ceil(plot_.height() * dpr)));
  image_ = QImage(width, height, QImage::Format_ARGB32_Premultiplied);
  image_.fill(Qt::transparent);
  const size_t n = xs_.size();
  const double left = plot_.left(), top = plot_.top();
  // Each layer's value at x by the line between its neighbouring points, as the polygon has it.
  auto at = [&](size_t k, double x, auto value) {
    if (x <= xs_[k]) return value(k);
    const double span = xs_[k + 1] - xs_[k];
    const double t = span > 0 ? (x - xs_[k]) / span : 1.0;
    return value(k) + (value(k + 1) - value(k)) * t;
  };
  std::vector<double> low(layers_.size()), high(layers_.size());  // pixel y: high is the smaller
  size_t k = 0;  // the segment [xs_[k], xs_[k + 1]] the column's left edge falls in
  for (int px = 0; px < width; ++px) {
    const double x0 = left + px / dpr, x1 = x0 + 1 / dpr;
    if (x1 < xs_.front() || x0 > xs_.back()) continue;
    while (k + 2 < n && xs_[k + 1] <= x0) ++k;
    const double a = std::max(x0, xs_.front()), b = std::min(x1, xs_.back());
    for (size_t c = 0; c < layers_.size(); ++c) {
      auto topOf = [&](size_t p) { return layers_[c].top[p]; };
      auto bottom = [&](size_t p) { return bottomOf(c, p); };
      double hi = at(k, a, topOf), lo = at(k, a, bottom);
      size_t j = k + 1;
      for (; j < n && xs_[j] < b; ++j) hi = std::min(hi, topOf(j)), lo = std::max(lo, bottom(j));
      const size_t last = std::min(j - 1, n - 2);
      hi = std::min(hi, at(last, b, topOf));
      lo = std::max(lo, at(last, b, bottom));
      high[c] = hi, low[c] = lo;
    }
    for (size_t c = 0; c < layers_.size(); ++c) {
      if (!layers_[c].visible || !(low[c] > high[c])) continue;  // (false for NaN too)
      auto row = [&](double y) {
        return static_cast<int>(std::lround(std::clamp((y - top) * dpr, 0.0, static_cast<double>(height))));
      };
      const int y0 = row(high[c]), y1 = row(low[c]);
      const QRgb src = qPremultiply(layers_[c].color.rgba());
      const uint alpha = qAlpha(src);
      for (int y = y0; y < y1; ++y) {
        auto* pixel = reinterpret_cast<QRgb*>(image_.scanLine(y)) + px;
        const QRgb dst = *pixel;
        const uint keep = 255 - alpha;
        *pixel = qRgba(qRed(src) + qRed(dst) * keep / 255, qGreen(src) + qGreen(dst) * keep / 255,
                       qBlue(src) + qBlue(dst) * keep / 255, alpha + qAlpha(dst) * keep / 255);
      }
    }
  }
  image_.setDevicePixelRatio(dpr);
  return image_;
}

void StackColumnsItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  if (empty() || plot_.isEmpty()) return;
  const QPaintEngine* engine = painter->paintEngine();
  painter->save();
  painter->setClipRect(plot_);
  if (engine && engine->type() == QPaintEngine::Raster) {
    // The target's pixels per unit: a high-DPI screen's ratio or an export's scale, whichever is larger.
    const QTransform& to_device = painter->deviceTransform();
    const qreal scale = std::max(std::hypot(to_device.m11(), to_device.m12()), std::hypot(to_device.m21(), to_device.m22()));
    const qreal ratio = painter->device() ? painter->device()->devicePixelRatioF() : 1;
    const qreal dpr = std::clamp(std::max(scale, ratio), qreal{1}, qreal{8});
    painter->drawImage(plot_.topLeft(), image(dpr));
  } else {
    painter->setPen(Qt::NoPen);
    for (size_t c = 0; c < layers_.size(); ++c) {
      if (!layers_[c].visible) continue;
      QPainterPath path;
      path.moveTo(xs_[0], layers_[c].top[0]);
      for (size_t k = 1; k < xs_.size(); ++k) path.lineTo(xs_[k], layers_[c].top[k]);
      for (size_t k = xs_.size(); k-- > 0;) path.lineTo(xs_[k], bottomOf(c, k));
      path.closeSubpath();
      painter->fillPath(path, layers_[c].color);
    }
  }
  painter->restore();
}

}  // namespace sawtooth::views
