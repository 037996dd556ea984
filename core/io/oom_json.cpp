#include "core/io/oom_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/util/format_bytes.h"
#include "core/util/printable.h"

namespace sawtooth {
namespace {

using nlohmann::json;

// A cell as its column holds it: bytes and nanoseconds as integers.
json cellJson(const Cell& c, Unit unit) {
  if (const std::string* t = c.text()) return *t;
  if (const double* n = c.number()) return unit == Unit::Bytes || unit == Unit::Nanoseconds ? json(static_cast<int64_t>(*n)) : json(*n);
  return nullptr;
}

// "allocated at" (ns) → "allocated_at_ns"; "size" (bytes) → "size_bytes".
std::string keyOf(const TableColumn& column) {
  std::string key = column.name;
  for (char& ch : key)
    if (ch == ' ') ch = '_';
  if (column.unit == Unit::Bytes) key += "_bytes";
  if (column.unit == Unit::Nanoseconds) key += "_ns";
  return key;
}

std::string cellText(const Cell& c, Unit unit) {
  if (const std::string* t = c.text()) return printable(*t);
  if (const double* n = c.number()) {
    if (unit == Unit::Bytes) return formatBytes(static_cast<int64_t>(*n));
    if (unit == Unit::Nanoseconds) return fmt::format("{:.3f} s", *n / 1e9);
    return fmt::format("{}", *n);
  }
  return "-";
}

}  // namespace

std::string oomJson(const OomDocument& doc, int indent) {
  json j = {{"file", doc.file}, {"oom_events", doc.oom_events}};
  if (!doc.report) {
    j["oom"] = nullptr;
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
  }
  const OomReport& r = *doc.report;
  json blocks = json::array();
  for (size_t row = 0; row < r.blocks.rowCount(); ++row) {
    json b = json::object();
    for (size_t c = 0; c < r.blocks.columns.size(); ++c)
      b[keyOf(r.blocks.columns[c])] = cellJson(r.blocks.at(row, c), r.blocks.columns[c].unit);
    blocks.push_back(std::move(b));
  }
  json o = {{"device", r.device_name},
            {"event", r.event},
            {"t_ns", r.t_ns},
            {"allocator_event", r.index},
            {"requested_bytes", r.requested},
            {"device_free_bytes", r.device_free ? json(*r.device_free) : json(nullptr)},
            {"allocated_bytes", r.allocated},
            {"live_blocks", r.live_blocks},
            {"itemised_bytes", r.itemised},
            {"largest_blocks", blocks}};
  if (doc.explanation)
    o["explanation"] = {{"summary", doc.explanation->summary}, {"details", doc.explanation->details}};
  else
    o["explanation"] = {{"unavailable", doc.why_unexplained}};
  j["oom"] = std::move(o);
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string oomText(const OomDocument& doc) {
  if (!doc.report) return fmt::format("{}: no out-of-memory event\n", printable(doc.file));
  const OomReport& r = *doc.report;
  std::string out = fmt::format("{}: out of memory on {} at {:.3f} s (allocator event {}): asked for {}",
                                printable(doc.file), printable(r.device_name), static_cast<double>(r.t_ns) / 1e9, r.index,
                                formatBytes(r.requested));
  if (r.device_free) out += fmt::format(" with {} free on the device", formatBytes(*r.device_free));
  out += "\n";
  if (doc.oom_events > 1) out += fmt::format("  the first of {} out-of-memory events\n", doc.oom_events);
  out += fmt::format("  allocated then  {} in {} live block(s)", formatBytes(r.allocated), r.live_blocks);
  if (r.allocated > r.itemised) out += fmt::format(" ({} from before the trace began, not itemised)", formatBytes(r.allocated - r.itemised));
  out += "\n";
  if (doc.explanation) {
    out += "  why: " + printable(doc.explanation->summary) + "\n";
    for (const std::string& line : doc.explanation->details) out += "    " + printable(line) + "\n";
  } else {
    out += "  why: not explained: " + printable(doc.why_unexplained) + "\n";
  }
  out += "  the largest blocks alive then:\n";
  for (size_t row = 0; row < r.blocks.rowCount(); ++row) {
    out += "    ";
    for (size_t c = 0; c < r.blocks.columns.size(); ++c)
      out += (c ? " | " : "") + cellText(r.blocks.at(row, c), r.blocks.columns[c].unit);
    out += "\n";
  }
  return out;
}

}  // namespace sawtooth
