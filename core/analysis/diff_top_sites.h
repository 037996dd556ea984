#pragma once
// The sites a diverging bar chart of a trace diff shows: the rows that changed most at the peak.

#include <cstddef>
#include <vector>

#include "core/analysis/trace_diff.h"

namespace sawtooth {

// Indices of the (at most) `n` rows with the largest change of live bytes at the peak in either
// direction (rows that did not change are left out), ordered by growth: largest growth first,
// largest shrink last.
std::vector<size_t> topChangedRows(const TraceDiff& diff, size_t n);

}  // namespace sawtooth
