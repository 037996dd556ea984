#pragma once
// Fills the bar charts with a recording's results (core/analysis/experiment_results): every bar
// height, label and tooltip comes from a measurement in the trace, worded by core/analysis.

#include <vector>

#include "core/analysis/experiment_results.h"
#include "views/bar_chart.h"

namespace sawtooth::views {

// Peak allocated (and reserved, where recorded) per run, with the change against the first run
// and the time it cost: "−53 % peak · +34 % time". False when no run has a peak.
bool showPeakComparison(BarChart& chart, const std::vector<PeakGroup>& groups, const std::string& workload);
// The anatomy plan against the count, per category, with the error of each.
bool showAnatomyPlan(BarChart& chart, const std::vector<PlanRow>& rows);
// Median step time per precision mode with min–max whiskers and the speed-ups.
bool showPrecisionTiming(BarChart& chart, const std::vector<PrecisionRow>& rows);

QString signedPercent(double change);

}  // namespace sawtooth::views
