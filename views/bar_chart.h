#pragma once
// Grouped bars with a label above each group and optional min–max whiskers, hover tooltips with
// exact values, and PNG/SVG export: the peak comparison, the anatomy plan against the count, and
// the precision timing bars are all this chart with different data.

#include <QBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QGraphicsSimpleTextItem>
#include <QStringList>
#include <optional>

namespace sawtooth::views {

struct BarSetData {
  QString name;
  QColor color;
  QList<qreal> values;
  QStringList tooltips;                           // one per category (rich text)
  std::optional<QList<QPair<qreal, qreal>>> whiskers;  // (min, max) per category, single-set charts
};

class BarChart : public QChartView {
  Q_OBJECT
 public:
  explicit BarChart(QWidget* parent = nullptr);

  void setData(const QString& title, const QString& value_title, const QStringList& categories,
               const QList<BarSetData>& sets, const QStringList& annotations);
  // A horizontal line across every group, named in the legend (a plan, a limit).
  void addReferenceLine(const QString& label, qreal value, const QColor& color);
  QStringList referenceLines() const { return references_; }
  QStringList categories() const { return categories_; }
  QStringList annotations() const { return annotations_; }
  QBarSet* barSet(int index) const;
  int whiskerCount() const { return whiskers_; }
  bool savePng(const QString& path, QSize size = {});
  bool saveSvg(const QString& path, QSize size = {});

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void placeAnnotations();

  QBarSeries* series_ = nullptr;
  QStringList categories_;
  QStringList annotations_;
  QStringList references_;
  QList<qreal> group_tops_;
  QList<QStringList> tooltips_;
  QList<QGraphicsSimpleTextItem*> labels_;
  int whiskers_ = 0;
};

}  // namespace sawtooth::views
