#pragma once
// The seed's ladder written with this machine's numbers: one rung per remedy, each finding taken
// from the recordings that are open and linked to the chart it came from; rungs not measured yet
// say so.

#include <QLabel>
#include <QWidget>
#include <vector>

#include "core/analysis/experiment_results.h"

namespace sawtooth::views {

class LadderView : public QWidget {
  Q_OBJECT
 public:
  explicit LadderView(QWidget* parent = nullptr);
  void setTraces(const std::vector<const Trace*>& traces);
  const std::vector<LadderRung>& rungs() const { return rungs_; }
  QString text() const;  // plain text of every rung (tests, copy)

 signals:
  // A rung's link: show the chart of this workload (and run) it came from.
  void chartRequested(QString workload, QString run);

 private:
  std::vector<LadderRung> rungs_;
  QLabel* body_;
};

}  // namespace sawtooth::views
