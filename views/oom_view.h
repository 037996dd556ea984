#pragma once
// The post-mortem of an out-of-memory (core/analysis/trace_report.h's OomReport): what was asked
// for and what the device had free, the timeline up to the failure with the failure marked, and
// the largest blocks alive at that moment with their category, phase and frames. For a file read on
// demand the timeline is drawn from its summaries (the tab's overview; frames asked for with
// timeline()->frameRequested, as the tab's own timeline does).

#include <QLabel>
#include <QTableView>
#include <QWidget>
#include <memory>

#include "core/analysis/trace_report.h"
#include "views/table_model.h"
#include "views/timeline_chart.h"

namespace sawtooth::views {

class OomView : public QWidget {
  Q_OBJECT
 public:
  explicit OomView(QWidget* parent = nullptr);
  // Shows the report's out-of-memory; false when it has none. `overview`: a file read on demand's.
  bool setReport(const TraceReport& report, std::shared_ptr<const TimelineOverview> overview = nullptr);
  QString headline() const { return headline_->text(); }
  QTableView* blocks() const { return blocks_; }
  TableModel* blocksModel() const { return model_; }
  TimelineChart* timeline() const { return timeline_; }

 private:
  QLabel* headline_;
  TimelineChart* timeline_;
  TableModel* model_;
  QTableView* blocks_;
};

}  // namespace sawtooth::views
