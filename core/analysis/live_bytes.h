#pragma once
// What the live-bytes view draws at one moment (the peak, or any allocator event): the flame
// graph of the allocations alive then, the table by call site and category (as rows and as the
// table the view shows), and a headline. All come from one LiveSet, so the graph's root, the table's rows and the headline's total
// are the same bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/flame_graph.h"
#include "core/analysis/live_allocations.h"
#include "core/analysis/table.h"
#include "core/model/trace.h"

namespace sawtooth {

struct LiveBytes {
  int16_t device = 0;
  int64_t position = -1;   // the allocator event (-1: the start)
  bool at_peak = false;
  int64_t total = 0;
  size_t allocations = 0;
  FlameGraph flame;
  std::vector<SiteRow> sites;
  Table table;             // the sites as shown and exported (liveSitesTable)
  std::string headline;    // "Live at the peak on cuda:0 (allocator event 1,234): 572.5 MB in 31 allocations"
};

// At an allocator event of the device; `position` empty: at the device's peak.
LiveBytes liveBytesAt(const Trace& trace, int16_t device, std::optional<int64_t> position = {},
                      FrameSelection selection = FrameSelection::Python);
// Of allocations already found (a file too large to read whole: summary_moment.h); `trace` names
// their stacks and device.
LiveBytes liveBytesOf(const Trace& trace, const LiveSet& live, bool at_peak,
                      FrameSelection selection = FrameSelection::Python);

}  // namespace sawtooth
