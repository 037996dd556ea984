#pragma once
// The timeline's stacked categories drawn as one item. Qt Charts fills each category as a polygon
// through its points, and a window of many steps makes those polygons jagged: every column's
// edge runs most of the plot's height, and Qt's scanline fill pays for each edge on each row —
// 100–150 ms a zoom for 8 layers of ~1,100 columns on the 2-core machine. On a raster target the
// layers are written into one image instead, a pixel column at a time (each layer from its lowest
// bottom to its highest top among the points that fall in the column and the lines between them);
// vector targets (SVG) get each layer's polygon as Qt would draw it. The QAreaSeries stay for the
// legend and the data; they are made transparent while this item draws them.

#include <QColor>
#include <QGraphicsItem>
#include <QImage>
#include <vector>

namespace sawtooth::views {

class StackColumnsItem : public QGraphicsItem {
 public:
  struct Layer {
    QColor color;            // with its alpha
    bool visible = true;     // a hidden layer still lifts the ones above it
    std::vector<double> top; // pixel y of the layer's top at each x (smaller is higher)
  };
  explicit StackColumnsItem(QGraphicsItem* parent = nullptr);

  // In the item's coordinates: the plot, the points' pixel x (increasing), the first layer's bottom
  // (pixel y of 0 bytes) and the layers from the bottom up.
  void setStack(const QRectF& plot, std::vector<double> xs, double baseline, std::vector<Layer> layers);
  void clear() { setStack(QRectF(), {}, 0, {}); }
  bool empty() const { return layers_.empty() || xs_.size() < 2; }

  QRectF boundingRect() const override { return plot_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const QImage& image(qreal device_pixel_ratio);
  double bottomOf(size_t layer, size_t point) const;

  QRectF plot_;
  std::vector<double> xs_;
  double baseline_ = 0;
  std::vector<Layer> layers_;
  QImage image_;  // at image_.devicePixelRatio(); null until painted after a change
};

}  // namespace sawtooth::views
