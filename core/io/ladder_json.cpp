#include "core/io/ladder_json.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/analysis/result_text.h"
#include "core/util/format_bytes.h"

namespace sawtooth {
namespace {

using nlohmann::json;

template <typename T>
json optional(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json rowJson(const LadderRow& r) {
  json j;
  j["id"] = r.id;
  j["label"] = r.label;
  j["family"] = std::string(name(r.family));
  j["applicable"] = r.applicable;
  j["predicted"] = r.predicted;
  if (!r.note.empty()) j["note"] = r.note;
  if (r.applicable && r.predicted) {
    j["peak_allocated_bytes"] = r.peak_allocated;
    j["peak_allocated_block_bytes"] = r.peak_allocated_blocks;
    j["peak_reserved_bytes"] = optional(r.peak_reserved);
    j["peak_part"] = r.peak_part;
    json at = json::object();
    for (int k = 0; k < kBlockRoleCount; ++k)
      if (r.at_peak[static_cast<size_t>(k)] != 0) at[std::string(name(static_cast<BlockRole>(k)))] = r.at_peak[static_cast<size_t>(k)];
    j["at_peak"] = at;
    j["reasoning"] = r.reasoning;
    if (r.peak_low && r.peak_high) {
      json range;
      range["low"] = *r.peak_low;
      range["high"] = *r.peak_high;
      range["why"] = r.range_why;
      j["peak_range"] = range;
    } else {
      j["peak_range"] = nullptr;
    }
    j["fits"] = optional(r.fits);
    j["max_batch_scale"] = optional(r.max_batch_scale);
    j["max_batch"] = optional(r.max_batch);
  }
  j["step_ms"] = optional(r.step_ms);
  j["time_basis"] = r.time_basis;
  if (r.measured) {
    json m;
    m["source"] = r.measured->source;
    m["peak_allocated_bytes"] = r.measured->peak_allocated;
    m["peak_allocated_block_bytes"] = r.measured->peak_allocated_blocks;
    m["peak_reserved_bytes"] = r.measured->peak_reserved >= 0 ? json(r.measured->peak_reserved) : json(nullptr);
    m["step_ms"] = optional(r.measured->step_ms);
    j["measured"] = m;
  } else {
    j["measured"] = nullptr;
  }
  j["peak_error"] = optional(r.peak_error);
  j["measured_in_range"] = optional(r.measured_in_range);
  j["time_error"] = optional(r.time_error);
  return j;
}

std::string ms(const std::optional<double>& v) { return v ? fmt::format("{:.3g} ms", *v) : "—"; }
std::string err(const std::optional<double>& v) { return v ? fmt::format("{:+.1f} %", 100 * *v) : ""; }

}  // namespace

std::string ladderJson(const LadderReport& rep, const std::string& file, int indent) {
  json j;
  j["file"] = file;
  j["run"] = rep.run;
  j["device"] = rep.device;
  j["device_name"] = rep.device_name;
  j["cuda"] = rep.cuda;
  j["device_memory_bytes"] = rep.device_memory > 0 ? json(rep.device_memory) : json(nullptr);
  j["device_memory_source"] = rep.device_memory_source;
  j["batch"] = optional(rep.batch);
  j["batch_key"] = rep.batch_key;
  j["repeated_blocks"] = rep.blocks_source;
  j["step_time_source"] = rep.time_source;
  j["step_parts_source"] = rep.parts_source;
  j["shard_devices"] = rep.shard_devices;
  j["peak_measure"] = rep.cuda ? "allocator blocks (max_memory_allocated)" : "bytes (CPU allocations)";
  j["diagnosis"] = {{"verdict", rep.diagnosis.verdict},
                    {"evidence", rep.diagnosis.evidence},
                    {"start_with", rep.diagnosis.start_with}};
  json rows = json::array();
  for (const LadderRow& r : rep.rows) rows.push_back(rowJson(r));
  j["rungs"] = rows;
  return j.dump(indent);
}

std::string ladderText(const LadderReport& rep) {
  std::string out;
  const LadderRow* base = rep.rows.empty() ? nullptr : &rep.rows.front();
  out += fmt::format("Run '{}' on {}{}; the peak in {}.\n", rep.run, rep.cuda ? fmt::format("cuda:{}", rep.device) : "the CPU",
                     rep.device_name.empty() ? "" : " (" + rep.device_name + ")",
                     rep.cuda ? "allocator blocks, as max_memory_allocated counts" : "bytes");
  if (rep.device_memory > 0)
    out += fmt::format("Fits: judged against {} ({}).\n", formatBytes(rep.device_memory), rep.device_memory_source);
  out += fmt::format("Repeated blocks: {}\nStep time: {}\n\n", rep.blocks_source, rep.time_source);
  out += fmt::format("{:<58} {:>12} {:>7} {:>11} {:>7} {:>5} {:>9}  {:>12} {:>8} {:>11} {:>8}\n", "rung", "peak", "change",
                     "step", "change", "fits", "max batch", "measured", "error", "measured", "error");
  for (const LadderRow& r : rep.rows) {
    if (!r.applicable || !r.predicted) {
      std::string line = fmt::format("{:<58} {}", r.label, r.applicable ? r.note : "not applicable: " + r.note);
      if (r.measured)
        line += fmt::format(" (measured: {}, {})", formatBytes(rep.cuda ? r.measured->peak_allocated_blocks : r.measured->peak_allocated),
                            ms(r.measured->step_ms));
      out += line + "\n";
      continue;
    }
    const int64_t p = rep.cuda ? r.peak_allocated_blocks : r.peak_allocated;
    const int64_t b = base ? (rep.cuda ? base->peak_allocated_blocks : base->peak_allocated) : 0;
    std::string change = &r != base && b > 0 ? signedPercentText(static_cast<double>(p) / static_cast<double>(b) - 1) : "";
    std::string tchange;
    if (&r != base && r.step_ms && base && base->step_ms && *base->step_ms > 0)
      tchange = signedPercentText(*r.step_ms / *base->step_ms - 1);
    std::string fits = r.fits ? (*r.fits ? "yes" : "no") : "";
    std::string maxb = r.max_batch ? std::to_string(*r.max_batch) : r.max_batch_scale ? fmt::format("×{:.2g}", *r.max_batch_scale) : "";
    std::string mp, ms_;
    if (r.measured) {
      mp = formatBytes(rep.cuda ? r.measured->peak_allocated_blocks : r.measured->peak_allocated);
      ms_ = ms(r.measured->step_ms);
    }
    out += fmt::format("{:<58} {:>12} {:>7} {:>11} {:>7} {:>5} {:>9}  {:>12} {:>8} {:>11} {:>8}\n", r.label, formatBytes(p), change,
                       ms(r.step_ms), tchange, fits, maxb, mp, err(r.peak_error), ms_, err(r.time_error));
  }
  out += fmt::format("\nDiagnosis: {}. Start with: {}\n", rep.diagnosis.verdict, rep.diagnosis.start_with);
  for (const std::string& e : rep.diagnosis.evidence) out += "  - " + e + "\n";
  out += "\nWhy (which bytes change):\n";
  for (const LadderRow& r : rep.rows) {
    if (!r.applicable || !r.predicted || &r == base) continue;
    out += fmt::format("{}:\n", r.label);
    for (const std::string& line : r.reasoning) out += "  - " + line + "\n";
    if (!r.time_basis.empty()) out += "  - time: " + r.time_basis + "\n";
  }
  return out;
}

}  // namespace sawtooth
