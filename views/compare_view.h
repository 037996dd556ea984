#pragma once
// Two traces of the same workload on one timeline (their allocated and reserved series overlaid,
// each device named after its file) and a table of their peak differences, per device and per run.

#include <QTableWidget>
#include <QWidget>
#include <memory>

#include "core/analysis/trace_analysis.h"
#include "views/timeline_chart.h"

namespace sawtooth::views {

// One trace holding both sides: A's devices keep their ids, B's are offset by kCompareOffset;
// every device gets a label "A cuda:0" / "B cuda:0" so that legends and tooltips say which is which.
inline constexpr int16_t kCompareOffset = 1000;
std::shared_ptr<const Trace> mergeForComparison(const Trace& a, const Trace& b);

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  void setTraces(std::shared_ptr<const TraceAnalysis> a, const QString& name_a, std::shared_ptr<const TraceAnalysis> b,
                 const QString& name_b);
  TimelineChart* timeline() const { return timeline_; }
  QTableWidget* differences() const { return table_; }

 private:
  TimelineChart* timeline_;
  QTableWidget* table_;
};

}  // namespace sawtooth::views
