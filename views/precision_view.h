#pragma once
// Mixed precision, fairly measured: the timing bars (median, min–max whiskers, speed-ups against
// fp32 and TF32) above a table of every mode's numbers and precision settings, so the comparison
// is visibly fair.

#include <QLabel>
#include <QTableWidget>
#include <QWidget>

#include "core/model/trace.h"
#include "views/bar_chart.h"

namespace sawtooth::views {

class PrecisionView : public QWidget {
  Q_OBJECT
 public:
  explicit PrecisionView(QWidget* parent = nullptr);
  bool setTrace(const Trace& trace);  // false when the trace has no precision runs
  BarChart* chart() const { return chart_; }
  QTableWidget* table() const { return table_; }

 private:
  BarChart* chart_;
  QTableWidget* table_;
  QLabel* note_;
};

}  // namespace sawtooth::views
