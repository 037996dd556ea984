#include "views/band_strip_item.h"

#include <QPaintEngine>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <cstring>

namespace sawtooth::views {

BandStripItem::BandStripItem(QGraphicsItem* parent) : QGraphicsItem(parent) {}

void BandStripItem::setBands(const QRectF& plot, std::vector<Band> bands) {
  if (plot != plot_) prepareGeometryChange();
  plot_ = plot;
  bands_ = std::move(bands);
  image_ = QImage();
  update();
}

const QImage& BandStripItem::image() {
  if (!image_.isNull()) return image_;
  const int width = std::max(1, static_cast<int>(std::ceil(plot_.width())));
  const int height = std::max(1, static_cast<int>(std::ceil(plot_.height())));
  QImage row(width, 1, QImage::Format_ARGB32_Premultiplied);
  row.fill(Qt::transparent);
  {
    QPainter p(&row);
    for (const Band& band : bands_) {
      if (!std::isfinite(band.px0) || !std::isfinite(band.px1)) continue;
      auto column = [&](double px) {
        return static_cast<int>(std::lround(std::clamp(px - plot_.left(), 0.0, static_cast<double>(width))));
      };
      const int x0 = column(band.px0), x1 = column(band.px1);
      p.fillRect(x0, 0, std::max(1, x1 - x0), 1, band.color);
    }
  }
  image_ = QImage(width, height, QImage::Format_ARGB32_Premultiplied);
  const auto bytes = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y) std::memcpy(image_.scanLine(y), row.constScanLine(0), bytes);
  return image_;
}

void BandStripItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  if (bands_.empty() || plot_.isEmpty()) return;
  const QPaintEngine* engine = painter->paintEngine();
  if (engine && engine->type() == QPaintEngine::Raster) {
    painter->drawImage(plot_.topLeft(), image());
    return;
  }
  for (const Band& band : bands_) painter->fillRect(QRectF(band.px0, plot_.top(), band.px1 - band.px0, plot_.height()), band.color);
}

}  // namespace sawtooth::views
