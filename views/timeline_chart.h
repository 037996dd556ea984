#pragma once
// The sawtooth timeline: allocated / reserved (and driver / device-used when the trace has them)
// per device, against time or against allocation-event index; optionally the live bytes stacked
// by category, the plan's lines, and out-of-memory markers. The chart never holds more than about
// two points per pixel column: each visible range is re-decimated from the analysis' pyramids.
// Rubber-band (left drag) and wheel zoom, pan (right or middle drag, arrow keys), reset (double
// click, Home or 0); hover shows the nearest event; the peak is marked and labelled; phases and
// annotations are drawn as bands.

#include <QAreaSeries>
#include <QChartView>
#include <QHash>
#include <QLineSeries>
#include <QRubberBand>
#include <QScatterSeries>
#include <QValueAxis>
#include <memory>
#include <optional>
#include <set>

#include "core/analysis/trace_analysis.h"
#include "core/analysis/zoom_window.h"

namespace sawtooth::views {

class TimelineBands;

// A horizontal reference line (the anatomy plan's 16P, a memory limit).
struct PlanLine {
  QString label;
  double bytes = 0;
};

class TimelineChart : public QChartView {
  Q_OBJECT
 public:
  explicit TimelineChart(QWidget* parent = nullptr);
  ~TimelineChart() override;

  void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
  std::shared_ptr<const TraceAnalysis> analysis() const { return analysis_; }

  void setXAxisByTime(bool by_time);
  bool xAxisByTime() const { return by_time_; }
  void setBandsVisible(bool visible);
  void setTitle(const QString& title);
  // Devices to draw; empty means every device.
  void setVisibleDevices(std::set<int16_t> devices);
  // Live bytes stacked by category (recordings only; a no-op when the trace has no categories).
  void setStackedCategories(bool stacked);
  bool stackedCategories() const { return stacked_; }
  bool hasCategories() const;
  void setPlanLines(std::vector<PlanLine> lines);
  // The x extent to zoom within (data units), instead of this trace's own: lanes of several traces
  // on one clock share one extent so that the same moment lines up.
  void setSharedBounds(double lo, double hi);
  // Legend entries for phase names (on by default; a comparison of two traces turns them off).
  void setPhaseLegendVisible(bool visible);

  void resetZoom();
  void zoomTo(double lo, double hi);  // data units: ns, or allocator-event index
  void zoomAround(double anchor, double factor);
  void pan(double dx);
  const ZoomWindow& window() const { return window_; }
  // The x (data units) of a global event index on this chart's axis.
  double xOfEvent(uint64_t event) const;

  // Introspection for labels, tests and exports.
  QLineSeries* line(int16_t device, SeriesKind kind) const;
  QAreaSeries* categoryArea(int16_t device, Category category) const;
  QString peakLabel(int16_t device) const;
  QPointF peakPoint(int16_t device) const;  // in display units (ms or index, MB)
  QStringList planLabels() const;
  int oomMarkers() const;
  int pointBudget() const;                  // points the chart may hold per line
  QString describeEvent(int64_t event) const;
  bool savePng(const QString& path, QSize size = {}, qreal scale = 1.0);
  bool saveSvg(const QString& path, QSize size = {});

 signals:
  void windowChanged(double lo, double hi);
  void eventHovered(qint64 event);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  struct Line {
    int16_t device;
    const SeriesAnalysis* source;
    QLineSeries* series;
  };
  struct StackLayer {
    int16_t device;
    Category category;
    QLineSeries* upper;  // owned by the area
    QAreaSeries* area;
  };

  void rebuild();
  void addLines(const DeviceAnalysis& d, int device_index, bool several);
  void addPeak(const DeviceAnalysis& d, bool several);
  void addCategoryStack(const DeviceAnalysis& d, bool several);
  void addOomMarkers(const DeviceAnalysis& d);
  void addPlanLines();
  void addPhaseLegend();
  void connectLegend();
  void refresh();
  void applyWindow();
  bool deviceShown(int16_t device) const { return visible_devices_.empty() || visible_devices_.count(device); }
  double toDisplayX(double x) const { return by_time_ ? x / 1e6 : x; }
  double fromDisplayX(double x) const { return by_time_ ? x * 1e6 : x; }
  double dataXAt(const QPointF& view_pos) const;
  QAbstractSeries* anchorSeries() const;
  void showHover(const QPoint& view_pos);
  void hideHover();

  std::shared_ptr<const TraceAnalysis> analysis_;
  bool by_time_ = false;
  bool stacked_ = false;
  bool phase_legend_ = true;
  std::optional<std::pair<double, double>> shared_bounds_;
  std::set<int16_t> visible_devices_;
  std::vector<PlanLine> plan_lines_;
  ZoomWindow window_;
  QValueAxis* axis_x_ = nullptr;
  QValueAxis* axis_y_ = nullptr;
  std::vector<Line> lines_;
  std::vector<StackLayer> layers_;
  std::vector<std::pair<QLineSeries*, PlanLine>> plans_;
  QHash<int16_t, QScatterSeries*> peaks_;
  std::vector<QScatterSeries*> ooms_;
  QHash<QAbstractSeries*, std::string> phase_entries_;  // legend entries that stand for bands
  std::unique_ptr<TimelineBands> bands_;
  QGraphicsLineItem* hover_line_ = nullptr;

  enum class Drag { None, Zoom, Pan };
  Drag drag_ = Drag::None;
  QPoint drag_origin_;
  double pan_origin_lo_ = 0;
  QRubberBand* rubber_ = nullptr;
};

QColor categoryColor(Category category);

}  // namespace sawtooth::views
