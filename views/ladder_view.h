#pragma once
// The seed chapter's ladder of remedies with this machine's numbers (core/analysis/
// experiment_results.h's ladder), each rung linked to the chart it came from.

#include <QLabel>
#include <QWidget>
#include <vector>

#include "core/analysis/experiment_results.h"

namespace sawtooth::views {

class LadderView : public QWidget {
  Q_OBJECT
 public:
  explicit LadderView(QWidget* parent = nullptr);
  void setRungs(std::vector<LadderRung> rungs);
  const std::vector<LadderRung>& rungs() const { return rungs_; }
  QString text() const;

 signals:
  void chartRequested(QString workload, QString run);

 private:
  QLabel* body_;
  std::vector<LadderRung> rungs_;
};

}  // namespace sawtooth::views
