#pragma once
// Fills the bar charts from a recording's runs (core/analysis/experiment_results): every bar
// height, label and tooltip comes from a measurement in the trace.

#include "core/model/trace.h"
#include "views/bar_chart.h"

namespace sawtooth::views {

// Peak allocated (and reserved, where recorded) per run, with the change against the first run
// and the time it cost: "−53 % peak · +34 % time". False when no run has a peak.
bool showPeakComparison(BarChart& chart, const Trace& trace);
// The anatomy plan against the count, per category, with the error of each.
bool showAnatomyPlan(BarChart& chart, const Trace& trace, int16_t device);
// Median step time per precision mode with min–max whiskers and the speed-ups.
bool showPrecisionTiming(BarChart& chart, const Trace& trace);

QString signedPercent(double change);

}  // namespace sawtooth::views
