#include "core/io/allocator_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/analysis/call_sites.h"
#include "core/util/format_bytes.h"
#include "core/util/printable.h"

namespace sawtooth {
namespace {

using nlohmann::json;

std::string dump(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

json blockJson(const BlockView& b, SiteNamer& names) {
  json j = {{"address", b.address}, {"size", b.size}, {"requested_size", b.requested_size}, {"state", name(b.state)}};
  if (b.active()) {
    j["site"] = names.site(b.stack).label;
    if (b.category != Category::Unknown) j["category"] = name(b.category);
    if (b.alloc_event != kBeforeTrace) j["alloc_event"] = b.alloc_event;
  }
  if (b.size_inferred) {
    j["size_inferred"] = true;
    j["size_max"] = b.size_max;
  }
  return j;
}

json poolsJson(const std::vector<PoolFree>& pools) {
  json out = json::array();
  for (const PoolFree& p : pools)
    out.push_back({{"pool", p.small_pool ? "small" : "large"},
                   {"stream", p.stream},
                   {"reserved_bytes", p.reserved},
                   {"free_bytes", p.free_bytes},
                   {"largest_free_block", p.largest_free_block},
                   {"segments", p.segments}});
  return out;
}

json reportJson(const ReplayReport& r) {
  json j = {{"anomalies", r.anomalies},
            {"anomaly_notes", r.anomaly_notes},
            {"inferred_blocks", r.inferred_blocks},
            {"inferred_bytes_max", r.inferred_bytes_max},
            {"resolved_blocks", r.resolved_blocks},
            {"settings_from_trace", r.settings_from_trace},
            {"peak_allocated_block_bytes", r.peak_allocated_bytes},
            {"peak_allocated_block_event_index", r.peak_position},
            {"exact", r.exact()}};
  j["matches_snapshot"] = r.snapshot_checked ? json(r.matches_snapshot) : json(nullptr);
  if (!r.differences.empty()) j["differences"] = r.differences;
  return j;
}

json oomJson(const OomExplanation& x, SiteNamer& names) {
  json blockers = json::array();
  for (const OomObstacle& o : x.in_the_way) {
    json blocks = json::array();
    for (const BlockView& b : o.blocks) blocks.push_back(blockJson(b, names));
    blockers.push_back({{"segment", o.segment},
                        {"window_address", o.window_address},
                        {"window_bytes", o.window_bytes},
                        {"blocking_bytes", o.blocking_bytes},
                        {"blocks", blocks}});
  }
  return {{"event_index", x.position},
          {"requested_bytes", x.requested},
          {"device_free_bytes", x.device_free},
          {"stream", x.stream},
          {"pool", x.small_pool ? "small" : "large"},
          {"pool_free_bytes", x.pool_free},
          {"largest_free_block", x.largest_free},
          {"cached_free_bytes", x.cached_free},
          {"in_the_way", blockers},
          {"summary", x.summary},
          {"details", x.details}};
}

}  // namespace

std::string segmentsJson(const Trace& trace, const std::string& file, const std::vector<SegmentsEntry>& devices, int indent) {
  SiteNamer names(trace.stacks);
  json out;
  out["file"] = file;
  json list = json::array();
  for (const SegmentsEntry& d : devices) {
    json dj;
    dj["device"] = trace.deviceName(d.state.device);
    dj["device_index"] = d.state.device;
    if (!d.error.empty()) {
      dj["error"] = d.error;
      list.push_back(std::move(dj));
      continue;
    }
    const AllocatorState& s = d.state;
    dj["event_index"] = s.position;
    dj["events"] = d.device_events;
    json segments = json::array();
    for (const SegmentView& seg : s.segments) {
      json blocks = json::array();
      for (const BlockView& b : seg.blocks) blocks.push_back(blockJson(b, names));
      json sj = {{"address", seg.address},
                 {"total_size", seg.total_size},
                 {"allocated_bytes", seg.allocatedBytes()},
                 {"active_bytes", seg.activeBytes()},
                 {"requested_bytes", seg.requestedBytes()},
                 {"stream", seg.stream},
                 {"pool", seg.small_pool ? "small" : "large"},
                 {"pool_id", {seg.pool_id.first, seg.pool_id.second}},
                 {"expandable", seg.expandable},
                 {"largest_free_block", seg.largestFreeBlock()},
                 {"blocks", blocks}};
      segments.push_back(std::move(sj));
    }
    dj["segments"] = std::move(segments);
    if (!s.outside_segments.empty()) {
      json outside = json::array();
      for (const BlockView& b : s.outside_segments) outside.push_back(blockJson(b, names));
      dj["outside_segments"] = outside;
    }
    dj["reserved_bytes"] = s.reserved;
    dj["allocated_bytes"] = s.allocated_bytes;
    dj["active_bytes"] = s.active_bytes;
    dj["requested_bytes"] = s.requested_bytes;
    dj["free_bytes"] = s.free_bytes;
    dj["largest_free_block"] = s.largest_free_block;
    dj["external_fragmentation_bytes"] = s.external_fragmentation;
    dj["internal_waste_bytes"] = s.internal_waste;
    dj["pools"] = poolsJson(s.pools);
    if (d.report) dj["replay"] = reportJson(*d.report);
    if (d.oom) dj["oom"] = oomJson(*d.oom, names);
    list.push_back(std::move(dj));
  }
  out["devices"] = std::move(list);
  return dump(out, indent);
}

std::string segmentsText(const Trace& trace, const std::vector<SegmentsEntry>& devices) {
  std::string out;
  for (const SegmentsEntry& d : devices) {
    if (!d.error.empty()) {
      out += fmt::format("{}: {}\n", printable(trace.deviceName(d.state.device)), printable(d.error));
      continue;
    }
    const AllocatorState& s = d.state;
    out += fmt::format("{} after event {} of {}: {} segment(s), reserved {}, allocated {} (requested {}), free {}, "
                       "largest free block {}, external fragmentation {}\n",
                       printable(trace.deviceName(s.device)), s.position, d.device_events, s.segments.size(), formatBytes(s.reserved),
                       formatBytes(s.allocated_bytes), formatBytes(s.requested_bytes), formatBytes(s.free_bytes),
                       formatBytes(s.largest_free_block), formatBytes(s.external_fragmentation));
    for (const SegmentView& seg : s.segments) {
      out += fmt::format("  {:#x} {:>10} {} {}{}: {} block(s), {} allocated, largest free {}\n", seg.address,
                         formatBytes(seg.total_size), seg.small_pool ? "small" : "large", streamLabel(seg.stream),
                         seg.expandable ? " expandable" : "", seg.blocks.size(), formatBytes(seg.allocatedBytes()),
                         formatBytes(seg.largestFreeBlock()));
    }
    if (d.report) {
      const ReplayReport& r = *d.report;
      if (r.snapshot_checked)
        out += r.matches_snapshot ? "  replay ends exactly in the snapshot's segments\n"
                                  : fmt::format("  replay differs from the snapshot's segments: {}\n",
                                                r.differences.empty() ? "" : printable(r.differences.front()));
      if (r.inferred_blocks)
        out += fmt::format("  {} block(s) from before the trace have an inferred size (up to {} more in all)\n",
                           r.inferred_blocks, formatBytes(r.inferred_bytes_max));
      if (r.anomalies) out += fmt::format("  {} event(s) did not fit the replayed state; first: {}\n", r.anomalies,
                                          r.anomaly_notes.empty() ? "" : printable(r.anomaly_notes.front()));
    }
    if (d.oom) {
      out += "  out of memory: " + printable(d.oom->summary) + "\n";
      for (const std::string& line : d.oom->details) out += "    " + printable(line) + "\n";
    }
  }
  return out;
}

std::string diffJson(const TraceDiff& d, int indent) {
  // Totals over a side are null where a side is a file too large to read whole (not counted).
  auto total = [&](int64_t v) { return d.totals_known ? json(v) : json(nullptr); };
  auto side = [&](const DiffSide& s) {
    json j = {{"file", s.file},
              {"device", s.device},
              {"peak_allocated_bytes", s.peak_allocated_bytes},
              {"peak_allocated_event_index", s.peak_position},
              {"peak_phase", s.peak_phase},
              {"total_allocated", total(s.total_allocated)}};
    if (!s.run.empty()) j["run"] = s.run;
    return j;
  };
  const char* key = d.by == DiffBy::Site ? "site" : "module";
  json rows = json::array();
  for (const DiffRow& r : d.rows)
    rows.push_back({{key, r.site},
                    {"category", name(r.category)},
                    {"a_bytes", r.a_bytes},
                    {"b_bytes", r.b_bytes},
                    {"growth", r.growth()},
                    {"a_total_allocated", total(r.a_total_allocated)},
                    {"b_total_allocated", total(r.b_total_allocated)},
                    {"a_count", r.a_count},
                    {"b_count", r.b_count}});
  json out = {{"a", side(d.a)},
              {"b", side(d.b)},
              {"by", key},
              {"by_category", d.by_category},
              {d.by == DiffBy::Site ? "sites" : "modules", rows},
              {"summary", d.change.lines}};
  return dump(out, indent);
}

std::string diffText(const TraceDiff& d, size_t max_rows) {
  std::string out;
  for (const std::string& line : d.change.lines) out += printable(line) + "\n";
  const char* what = d.by == DiffBy::Site ? "site" : "module";
  out += fmt::format("\n{:>12} {:>12} {:>12}  {}{}\n", "A at peak", "B at peak", "growth", what,
                     d.by_category ? " (category)" : "");
  size_t shown = 0;
  for (const DiffRow& r : d.rows) {
    if (shown++ == max_rows) {
      out += fmt::format("... and {} more {}(s) (--json lists them all)\n", d.rows.size() - max_rows, what);
      break;
    }
    out += fmt::format("{:>12} {:>12} {:>12}  {}{}\n", formatBytes(r.a_bytes), formatBytes(r.b_bytes),
                       formatBytes(r.growth()), printable(r.site), r.category == Category::Unknown ? "" : fmt::format(" ({})", name(r.category)));
  }
  return out;
}

}  // namespace sawtooth
