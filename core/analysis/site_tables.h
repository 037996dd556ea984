#pragma once
// The call-site tables the allocator views show, as core tables (core/analysis/table.h): the live
// bytes by call site and category, and a trace diff's rows. Views show them through TableModel;
// CSV exports write their raw numbers. And what the comparison's "Call sites" view draws.

#include <cstddef>
#include <vector>

#include "core/analysis/live_bytes.h"
#include "core/analysis/table.h"
#include "core/analysis/trace_diff.h"

namespace sawtooth {

// call site, category, live bytes, allocations, file, line, function — largest first.
Table liveSitesTable(const LiveBytes& live);
// call site, category, bytes at each side's peak, their change (B − A), bytes allocated over each
// side, allocations alive at each peak — in the diff's order (by growth).
Table diffSitesTable(const TraceDiff& diff);

// The comparison's "Call sites" view: the diff, its rows as a table, and the rows of the diverging
// bar chart (the `top_sites` that changed most, largest growth first).
struct CallSiteDiff {
  TraceDiff diff;
  Table table;
  std::vector<size_t> top_rows;
};
CallSiteDiff callSiteDiff(TraceDiff diff, size_t top_sites);

}  // namespace sawtooth
