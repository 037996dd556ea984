#pragma once
// The post-mortem of an out-of-memory: what was asked for and what the device had free, the
// timeline up to the failure with the failure marked, and the largest blocks alive at that
// moment with their category, phase and frames.

#include <QLabel>
#include <QTableWidget>
#include <QWidget>
#include <memory>

#include "core/analysis/trace_analysis.h"
#include "views/timeline_chart.h"

namespace sawtooth::views {

class OomView : public QWidget {
  Q_OBJECT
 public:
  explicit OomView(QWidget* parent = nullptr);
  // Shows the first out-of-memory event of the trace; false when there is none.
  bool setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
  QString headline() const { return headline_->text(); }
  QTableWidget* blocks() const { return blocks_; }
  TimelineChart* timeline() const { return timeline_; }

 private:
  QLabel* headline_;
  TimelineChart* timeline_;
  QTableWidget* blocks_;
};

}  // namespace sawtooth::views
