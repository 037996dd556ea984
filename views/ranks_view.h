#pragma once
// A distributed run's ranks (core/analysis/rank_comparison.h): the peak of each as bars with the
// plan's two lines — 16P when every rank keeps all of Adam's state, 4P + 4P + 8P/N when the state
// is sharded — the imbalance (largest over smallest peak), and one timeline lane per rank,
// aligned in time and zoomed together. The lanes' analyses arrive later (setLanes), computed off
// the GUI thread.

#include <QLabel>
#include <QScrollArea>
#include <QWidget>
#include <memory>
#include <vector>

#include "core/analysis/rank_comparison.h"
#include "views/bar_chart.h"
#include "views/timeline_chart.h"

namespace sawtooth::views {

class RanksView : public QWidget {
  Q_OBJECT
 public:
  explicit RanksView(QWidget* parent = nullptr);
  void setComparison(const RankComparison& ranks);
  void setLanes(const std::vector<RankLane>& lanes);
  BarChart* peaks() const { return peaks_; }
  const std::vector<TimelineChart*>& lanes() const { return lanes_; }
  QString imbalanceText() const { return imbalance_->text(); }
  double imbalance() const { return imbalance_ratio_; }

 private:
  BarChart* peaks_;
  QLabel* imbalance_;
  QLabel* lanes_note_;
  QWidget* lane_host_;
  std::vector<TimelineChart*> lanes_;
  double imbalance_ratio_ = 0;
  bool syncing_ = false;
};

}  // namespace sawtooth::views
