#pragma once
// The allocator's state at the event under the cursor: a headline, the out-of-memory explanation
// when the event is one, a scrubber (slider and event box, or following the timeline's hovered
// and clicked event), and the segment map. The view computes nothing: it asks for a position
// (positionRequested) and draws the map it is given (setMap), which the app computes off the GUI
// thread from the history's checkpoints.

#include <QCheckBox>
#include <QLabel>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QWidget>
#include <memory>

#include "core/analysis/segment_map.h"
#include "views/segment_map_widget.h"
#include "views/widget_export.h"

namespace sawtooth::views {

class AllocatorStateView : public QWidget {
  Q_OBJECT
 public:
  explicit AllocatorStateView(QWidget* parent = nullptr);

  // The device's allocator events: positions -1 (before the first) .. events − 1.
  void setEventCount(qint64 events);
  // Moves the scrubber without asking for a map.
  void setPosition(qint64 position);
  qint64 position() const { return spin_->value(); }
  void setMap(std::shared_ptr<const SegmentMap> map);
  // Shown instead of a map (a trace without segments, a failed replay).
  void setMessage(const QString& text);
  bool followsTimeline() const { return follow_->isChecked(); }

  SegmentMapWidget* segmentMap() const { return map_; }
  QLabel* headline() const { return headline_; }
  QLabel* oomText() const { return oom_; }
  QSlider* slider() const { return slider_; }
  QSpinBox* eventBox() const { return spin_; }
  QCheckBox* followBox() const { return follow_; }
  // What Export chart draws: the map at its full height.
  PaintedWidget picture() const;

 signals:
  void positionRequested(qint64 position);

 private:
  QLabel* headline_;
  QLabel* oom_;
  QSlider* slider_;
  QSpinBox* spin_;
  QCheckBox* follow_;
  QScrollArea* scroll_;
  SegmentMapWidget* map_;
  bool syncing_ = false;
};

}  // namespace sawtooth::views
