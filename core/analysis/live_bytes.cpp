#include "core/analysis/live_bytes.h"

#include "core/analysis/live_allocations.h"
#include "core/analysis/missing_stacks.h"
#include "core/analysis/site_tables.h"
#include "core/util/format_bytes.h"

namespace sawtooth {

LiveBytes liveBytesOf(const Trace& trace, const LiveSet& live, bool at_peak, FrameSelection selection) {
  LiveBytes out;
  out.device = live.device;
  out.at_peak = at_peak;
  out.position = live.position;
  out.total = live.total;
  out.allocations = live.allocations.size();
  SiteNamer names(trace.stacks);
  out.flame = buildFlameGraph(trace, live, names, selection);
  out.sites = siteTable(live, names);
  out.table = liveSitesTable(out);
  out.headline = std::string(out.at_peak ? "Live at the peak on " : "Live on ") + trace.deviceName(live.device) +
                 (out.position < 0 ? " (before the first allocator event)" : " (after allocator event " + std::to_string(out.position) + ")") +
                 ": " + formatBytes(out.total) + " in " + std::to_string(out.allocations) + " allocations";
  if (live.unattributed != 0) out.headline += ", " + formatBytes(live.unattributed) + " of it with no allocation on record";
  if (const std::string why = missingStacksReason(trace); !why.empty()) out.headline += " — no call stacks: " + why;
  return out;
}

LiveBytes liveBytesAt(const Trace& trace, int16_t device, std::optional<int64_t> position, FrameSelection selection) {
  const int64_t at = position ? *position : scopePeak(trace, device).position;
  return liveBytesOf(trace, liveAllocationsAt(trace, device, at), !position.has_value(), selection);
}

}  // namespace sawtooth
