#pragma once
// The allocator's segments at one event, as MemoryViz's state history draws them: a legend, then
// per pool and stream a header with its totals and one row per segment (address and size on the
// left), the segment's blocks left to right as wide as their share of it — allocated (blue, with
// the rounding waste nobody asked for in red at its end), pending free (orange), inactive split
// (grey), free cached segment (pale). Hovering a block says what it is; rows outside the visible
// area are not painted, so thousands of segments scroll smoothly.

#include <QWidget>
#include <memory>

#include "core/analysis/segment_map.h"

namespace sawtooth::views {

class SegmentMapWidget : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kRowHeight = 18;
  static constexpr int kLabelWidth = 190;

  explicit SegmentMapWidget(QWidget* parent = nullptr);
  void setMap(std::shared_ptr<const SegmentMap> map);
  const std::shared_ptr<const SegmentMap>& map() const { return map_; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {kLabelWidth + 120, kRowHeight * 3}; }
  // Rows as drawn: the legend, then each group's header and its segments.
  int rowCount() const { return static_cast<int>(rows_.size()) + 1; }
  // What the tooltip says at a point of the widget (empty: nothing there).
  QString describeAt(QPoint pos) const;
  // The widget-relative rectangle of a block (segment index in the state, block index in it).
  QRect blockRect(size_t segment, size_t block) const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Row {
    int group = -1;    // the header of this group
    long segment = -1; // or this segment (index in the state)
  };
  QRect barRect(int row) const;

  std::shared_ptr<const SegmentMap> map_;
  std::vector<Row> rows_;
};

}  // namespace sawtooth::views
