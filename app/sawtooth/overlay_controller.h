#pragma once
// The jobs of a comparison whose traces are not both read whole: the overlay (overlay_timeline.h)
// made for the view's alignment, again when the alignment changes, and each window's frame the
// chart asks for, all off the GUI thread. A child of the view: closing the comparison cancels them.

#include <QObject>
#include <memory>

#include "app/sawtooth/job_runner.h"
#include "app/sawtooth/overlay_timeline.h"
#include "views/compare_view.h"

namespace sawtooth::app {

class OverlayController : public QObject {
  Q_OBJECT
 public:
  OverlayController(JobRunner& jobs, views::CompareView* view, OverlayTimeline::Side a, OverlayTimeline::Side b);
  void run();

 private:
  QString slot(const char* what) const;
  void requestFrame(const TimelineRequest& request);

  JobRunner& jobs_;
  views::CompareView* view_;
  OverlayTimeline::Side a_, b_;
  std::shared_ptr<OverlayTimeline> overlay_;
};

}  // namespace sawtooth::app
