#pragma once
// The timeline's phase bands as one item: each band is a run of columns the full height of the plot
// in a translucent colour. On screen (and any raster target) they are painted as one image — a row of
// the bands blended once, copied down the plot — because Qt 6.4's raster engine hands every tall
// translucent fill to QThreadPool::globalInstance() in pieces and waits for them: 256 bands a frame
// were ~770 waits, 30–40 ms of a zoom's paint (bench/results/cpu-app-timeline-open-2026-12-05-c.md).
// Vector targets (SVG export) get one rectangle a band.

#include <QColor>
#include <QGraphicsItem>
#include <QImage>
#include <vector>

namespace sawtooth::views {

class BandStripItem : public QGraphicsItem {
 public:
  struct Band {
    double px0 = 0, px1 = 0;  // in the item's coordinates, inside the plot
    QColor color;             // with its alpha
  };
  explicit BandStripItem(QGraphicsItem* parent = nullptr);

  // The plot's rectangle and its bands, later ones drawn over earlier ones.
  void setBands(const QRectF& plot, std::vector<Band> bands);
  const std::vector<Band>& bands() const { return bands_; }

  QRectF boundingRect() const override { return plot_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const QImage& image();

  QRectF plot_;
  std::vector<Band> bands_;
  QImage image_;  // the bands over the plot's size; null until painted after a change
};

}  // namespace sawtooth::views
