#pragma once
// The sawtooth timeline: allocated / reserved (and driver / device-used when the trace has them)
// per device, against time or against allocation-event index; optionally the live bytes stacked
// by category, the plan's lines, and out-of-memory markers. The chart never holds more than about
// two points per pixel column: each visible range is re-decimated from the analysis' pyramids.
// The y axis fits what is visible (or starts at zero, setYFromZero) in the byte unit that suits it.
//
// The data comes one of two ways: a trace analysed in memory (setAnalysis: every line re-decimated
// here from its pyramids), or a trace read on demand from a file's summaries (setOverview: the
// devices, extent and peaks; then for each visible window the chart asks for a frame with
// frameRequested and draws the one handed to setFrame — computed by the app off the GUI thread;
// until it arrives the previous one stays drawn and the chart says it is computing). A recording
// still being written is the second kind, its overview handed again as it grows: a chart showing
// the latest moment follows it, one zoomed elsewhere stays. Zoom and pan are the same for both.
//
// Parts: this file builds the series and refreshes them for the visible window;
// timeline_input.cpp handles zoom, pan and hover; timeline_markers (peak and out-of-memory
// labels), timeline_hover (the details panel), timeline_bands (phases) and timeline_style
// (colours, ticks) draw the rest.

#include <QAreaSeries>
#include <QChartView>
#include <QHash>
#include <QLabel>
#include <QImage>
#include <QLineSeries>
#include <QRubberBand>
#include <QValueAxis>
#include <memory>
#include <optional>
#include <set>

#include "core/analysis/axis_scale.h"
#include "core/analysis/timeline_frame.h"
#include "core/analysis/trace_analysis.h"
#include "core/analysis/trace_report.h"
#include "core/analysis/zoom_window.h"

namespace sawtooth::views {

class TimelineBands;
class PolylineItem;
class StackColumnsItem;
class TimelineHover;
class TimelineMarkers;

class TimelineChart : public QChartView {
  Q_OBJECT
 public:
  explicit TimelineChart(QWidget* parent = nullptr);
  ~TimelineChart() override;

  void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
  std::shared_ptr<const TraceAnalysis> analysis() const { return analysis_; }
  // A trace read from its summaries (analysis: none). The zoom is kept when the extent is the same
  // or grows (a recording), and a window at the latest moment follows it as it grows.
  void setOverview(std::shared_ptr<const TimelineOverview> overview);
  std::shared_ptr<const TimelineOverview> overview() const { return overview_; }
  // The frame asked for (frameRequested); one for a window no longer shown is dropped.
  void setFrame(TimelineFrame frame);
  // Why the frame asked for could not be made (shown on the chart).
  void setFrameFailed(const QString& message);
  // A frame was asked for and has not arrived: the chart says it is computing.
  bool frameComputing() const { return pending_.has_value(); }
  // The frame drawn (null in the analysis mode or before the first).
  const TimelineFrame* frame() const { return frame_ ? &*frame_ : nullptr; }
  QString statusText() const { return status_->isHidden() ? QString() : status_->text(); }
  // The window shows the latest moment (a growing recording is followed).
  bool followsLatest() const { return follows_latest_; }

  void setXAxisByTime(bool by_time);
  bool xAxisByTime() const { return by_time_; }
  void setBandsVisible(bool visible);
  void setTitle(const QString& title);
  // Devices to draw; empty means every device. At most kMaxDrawnDevices are drawn (a line, a
  // legend entry and a peak label each): those with the largest peaks; the others one at a time on
  // demand (TraceTab's device choice). A snapshot of 4,096 devices draws in a second, not minutes.
  static constexpr size_t kMaxDrawnDevices = 8;
  void setVisibleDevices(std::set<int16_t> devices);
  // Devices of the trace not drawn because of that cap.
  size_t devicesLeftOut() const;
  // Live bytes stacked by category (recordings only; a no-op when the trace has no categories).
  // The zoom is kept.
  void setStackedCategories(bool stacked);
  bool stackedCategories() const { return stacked_; }
  bool hasCategories() const;
  void setPlanLines(std::vector<PlanLine> lines);
  // The y axis from zero instead of fitted to the visible data.
  void setYFromZero(bool from_zero);
  bool yFromZero() const { return y_from_zero_; }
  // The x extent to zoom within (data units), instead of this trace's own: lanes of several traces
  // on one clock share one extent so that the same moment lines up.
  void setSharedBounds(double lo, double hi);
  // Legend entries for phase names (on by default; a comparison of two traces turns them off).
  void setPhaseLegendVisible(bool visible);
  // A small lane (ranks): no legend, the y axis titled with its unit only.
  void setCompact(bool compact);
  // Each line ends at its series' last point instead of holding its value to the end of the x axis
  // (a comparison: the shorter trace stops where it ended, not as a flat line after it).
  void setLinesEndAtLastPoint(bool end);

  void resetZoom();
  void zoomTo(double lo, double hi);  // data units: ns, or allocator-event index
  void zoomAround(double anchor, double factor);
  void pan(double dx);
  const ZoomWindow& window() const { return window_; }
  // The x (data units) of a global event index on this chart's axis.
  double xOfEvent(uint64_t event) const;

  // Introspection for labels, tests and exports.
  // A line's series (its legend entry, pen and whether it is shown; empty: the points are drawn by
  // an item of the chart's, see views/polyline_item.h) and the points drawn, in the axes' units.
  QLineSeries* line(int16_t device, SeriesKind kind) const;
  QList<QPointF> linePoints(int16_t device, SeriesKind kind) const;
  QAreaSeries* categoryArea(int16_t device, Category category) const;
  QList<QPointF> categoryTop(int16_t device, Category category) const;  // the layer's top, as linePoints
  QString peakLabel(int16_t device) const;
  QPointF peakPoint(int16_t device) const;   // x in data units (ns or index), y in bytes
  bool peakShown(int16_t device) const;      // the marker and its label are on the chart now
  QRectF peakLabelRect(int16_t device) const;  // scene coordinates, empty when hidden
  QStringList planLabels() const;
  int oomMarkers() const;
  QRectF oomLabelRect(int k) const;             // the k-th out-of-memory's label, scene coordinates
  std::vector<QRectF> markerLabelRects() const;  // every peak and out-of-memory label shown
  std::vector<QRectF> markerRects() const;       // every peak dot and out-of-memory triangle shown
  std::vector<QRectF> bandLabelRects() const;    // every phase name shown on its band
  int pointBudget() const;                   // points the chart may hold per line
  uint64_t linesDrawn() const { return lines_drawn_; }  // times the lines were given new points
  ValueRange yRange() const { return y_range_; }  // bytes
  ByteUnit yUnit() const { return y_unit_; }
  QString yTitle() const;
  int bandsShown() const;
  QString describeEvent(int64_t event) const;
  bool hoverVisible() const;
  QString hoverText() const;

  bool savePng(const QString& path, QSize size = {}, qreal scale = 1.0);
  bool saveSvg(const QString& path, QSize size = {});

 signals:
  void windowChanged(double lo, double hi);
  // A window to draw from the summaries (setOverview's mode): answer with setFrame.
  void frameRequested(sawtooth::TimelineRequest request);
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
  bool viewportEvent(QEvent* event) override;

 private:
  struct Line {
    int16_t device;
    SeriesKind kind;
    const SeriesAnalysis* source;  // null when drawn from frames
    QLineSeries* series;
  };
  struct StackLayer {
    int16_t device;
    Category category;
    QLineSeries* upper;  // owned by the area; empty, drawn by the stack's item
    QAreaSeries* area;
    QList<QPointF> top;  // the layer's top in the axes' units
  };

  void rebuild();
  bool hasData() const { return analysis_ || overview_; }
  void addLine(int16_t device, SeriesKind kind, const SeriesAnalysis* source, int device_index, bool several);
  void addCategoryStack(int16_t device, bool several);
  QString deviceName(int16_t device) const;
  void updateFrameMarkers(bool several);
  // The frame mode's refresh: the frame for the window drawn, or asked for.
  void refreshFromFrame();
  int frameColumns() const;  // columns a window is computed in from the summaries
  int plotColumns() const;   // and from a trace read whole: the plot's pixels
  // Lines, stacks, markers, bands and the status label: in pixels, placed again when the plot moves.
  void placeOverlays();
  void placeStatus();
  void redrawForNewGeometry();  // after a resize or a move of the plot
  void placeStacks();  // the stacked categories' pixels, from their layers' tops (stack_columns_item.h)
  TimelineRequest currentRequest() const;
  void fitAndDraw(std::vector<std::vector<LodPoint>>& line_points, const std::vector<double>& layer_x,
                  std::vector<std::pair<StackLayer*, std::vector<double>>>& layer_tops, int columns);
  void addPlanLines();
  void addPhaseLegend();
  void connectLegend();
  void placeLegend();
  void updateMarkers(bool several);
  void refresh();
  void applyWindow();
  bool deviceShown(int16_t device) const { return drawn_devices_.count(device) > 0; }
  // The devices asked for (all when none were), at most kMaxDrawnDevices: those with the largest peaks.
  std::set<int16_t> devicesToDraw() const;
  int16_t referenceDevice() const;
  double toDisplayX(double x) const { return by_time_ ? x / 1e6 : x; }
  double fromDisplayX(double x) const { return by_time_ ? x * 1e6 : x; }
  double dataXAt(const QPointF& view_pos) const;
  bool onLegend(const QPoint& view_pos) const;
  QPointF chartPosition(double x, double bytes) const;
  QAbstractSeries* anchorSeries() const;
  void showHover(const QPoint& view_pos);
  void hideHover();

  std::shared_ptr<const TraceAnalysis> analysis_;
  std::shared_ptr<const TimelineOverview> overview_;
  std::optional<TimelineFrame> frame_;
  std::optional<TimelineRequest> pending_;
  uint64_t next_request_ = 0;
  int drawn_columns_ = -1;  // the columns of the window drawn last
  uint64_t lines_drawn_ = 0;
  bool follows_latest_ = true;
  bool rebuilt_by_time_ = false;
  bool window_from_summaries_ = false;  // the window was last set over an overview
  QLabel* status_ = nullptr;
  bool by_time_ = false;
  bool stacked_ = false;
  bool phase_legend_ = true;
  bool y_from_zero_ = false;
  bool compact_ = false;
  bool end_at_last_point_ = false;
  std::optional<std::pair<double, double>> shared_bounds_;
  std::set<int16_t> visible_devices_;
  std::set<int16_t> drawn_devices_;
  std::vector<PlanLine> plan_lines_;
  ZoomWindow window_;
  ValueRange y_range_;
  ByteUnit y_unit_{"MB", 1e6};
  QValueAxis* axis_x_ = nullptr;
  QValueAxis* axis_y_ = nullptr;
  std::vector<Line> lines_;
  std::vector<StackLayer> layers_;
  std::vector<std::pair<QLineSeries*, PlanLine>> plans_;
  std::vector<int16_t> peak_devices_;  // the device of each peak marker, in marker order
  int oom_markers_ = 0;
  QHash<QAbstractSeries*, std::string> phase_entries_;  // legend entries that stand for bands
  std::unique_ptr<TimelineBands> bands_;
  std::vector<StackColumnsItem*> stacks_;  // one a stacked device, children of the chart
  PolylineItem* lines_item_ = nullptr;     // draws lines_, in their order; a child of the chart
  std::unique_ptr<TimelineMarkers> markers_;
  std::unique_ptr<TimelineHover> hover_;

  enum class Drag { None, Zoom, Pan };
  Drag drag_ = Drag::None;
  QPoint drag_origin_;
  double pan_origin_lo_ = 0;
  QRubberBand* rubber_ = nullptr;
};

}  // namespace sawtooth::views
