#pragma once
// Mixed precision, fairly measured: the timing bars (median, min–max whiskers, speed-ups against
// fp32 and TF32) above a table of every mode's numbers and precision settings, so the comparison
// is visibly fair.

#include <QLabel>
#include <QTableView>
#include <QWidget>

#include "core/analysis/trace_report.h"
#include "views/bar_chart.h"
#include "views/table_model.h"

namespace sawtooth::views {

class PrecisionView : public QWidget {
  Q_OBJECT
 public:
  explicit PrecisionView(QWidget* parent = nullptr);
  // False when the report has no precision runs.
  bool setReport(const TraceReport& report);
  BarChart* chart() const { return chart_; }
  QTableView* table() const { return table_; }
  TableModel* tableModel() const { return model_; }

 private:
  BarChart* chart_;
  TableModel* model_;
  QTableView* table_;
  QLabel* note_;
};

}  // namespace sawtooth::views
