#include "core/io/summary_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/analysis/allocator_history.h"
#include "core/analysis/measurement_names.h"
#include "core/analysis/missing_stacks.h"
#include "core/model/recording_status.h"
#include "core/util/format_bytes.h"
#include "core/util/printable.h"

namespace sawtooth {
namespace {

using nlohmann::json;

std::string phaseOf(const Trace& trace, const Peak& peak) {
  if (peak.event >= trace.events.size()) return {};
  const uint32_t p = trace.events.phase()[peak.event];
  return p < trace.phases.size() ? trace.phases[p].name : std::string();
}

json categoryPeaksJson(const std::array<int64_t, kCategoryCount>& peaks) {
  json cats = json::object();
  for (int c = 0; c < kCategoryCount; ++c) cats[std::string(name(static_cast<Category>(c)))] = peaks[static_cast<size_t>(c)];
  return cats;
}

json runJson(const Run& run, uint16_t id, const std::vector<RunDevicePeaks>& run_peaks) {
  json config = json::object();
  for (const auto& [k, v] : run.config) config[k] = v;
  json measurements = json::array();
  for (const auto& m : run.measurements) measurements.push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}});
  json peaks = json::array();
  for (const RunDevicePeaks& p : run_peaks) {
    if (p.run != id) continue;
    json pj = {{"device", p.device}, {"peak_allocated_bytes", p.peak_allocated}, {"peak_allocated_t_ns", p.peak_allocated_t_ns}};
    if (p.has_categories) pj["category_peaks"] = categoryPeaksJson(p.category_peaks);
    peaks.push_back(std::move(pj));
  }
  return {{"name", run.name},
          {"workload", run.workload},
          {"configuration", config},
          {"measurements", measurements},
          {"peaks", peaks}};
}

}  // namespace

std::string summaryJson(const Trace& trace, const TraceSummary& s, int indent) {
  json out;
  out["format"] = s.format;
  if (auto it = trace.meta.find("source_format"); it != trace.meta.end()) out["source_format"] = it->second;
  out["events"] = s.events;
  if (const RecordingStatus rs = recordingStatus(trace.meta); !rs.complete)
    out["incomplete_recording"] = {{"reason", rs.reason}, {"detail", rs.detail}};
  if (const std::string why = missingStacksReason(trace); !why.empty()) out["stacks_missing"] = why;
  if (auto it = trace.meta.find("processes_left_out"); it != trace.meta.end()) out["processes_left_out"] = it->second;
  out["actions"] = s.actions;
  json devices = json::array();
  for (const auto& d : s.devices) {
    json dj;
    dj["device"] = d.device;
    dj["label"] = deviceLabel(d.device);
    if (const DeviceInfo* info = trace.device(d.device); info && !info->name.empty()) dj["name"] = info->name;
    dj["events"] = d.events;
    dj["allocator_events"] = d.allocator_events;
    dj["peak_allocated_bytes"] = d.peak_allocated.value;
    dj["peak_allocated_event_index"] = d.peak_allocated.x_index;
    dj["peak_allocated_t_ns"] = d.peak_allocated.t_ns;
    dj["peak_allocated_phase"] = phaseOf(trace, d.peak_allocated);
    dj["final_allocated_bytes"] = d.final_allocated;
    // Allocated as PyTorch counts it (block sizes), the measure of torch.cuda.max_memory_allocated().
    const auto blocks = allocatedBlockPeak(trace, d.device);
    dj["peak_allocated_block_bytes"] = blocks ? json(blocks->peak) : json(nullptr);
    if (blocks) {
      dj["final_allocated_block_bytes"] = blocks->final;
      dj["allocated_block_bytes_exact"] = blocks->exact;
    }
    dj["peak_reserved_bytes"] = d.peak_reserved.value;
    dj["oom_events"] = d.oom_events;
    json series = json::object();
    for (const auto& [kind, peak] : d.series_peaks) series[std::string(name(kind))] = peak;
    dj["series_peaks"] = series;
    if (d.invariants.has_device_used || d.invariants.has_driver) {
      dj["memory_order"] = {{"samples_checked", d.invariants.samples_checked},
                            {"points_checked", d.invariants.points_checked},
                            {"violations", d.invariants.violations},
                            {"first_violation", d.invariants.first_violation}};
    }
    if (d.has_categories) dj["category_peaks"] = categoryPeaksJson(d.category_peaks);
    devices.push_back(std::move(dj));
  }
  out["devices"] = devices;
  json runs = json::array();
  for (size_t i = 0; i < trace.runs.size(); ++i) runs.push_back(runJson(trace.runs[i], static_cast<uint16_t>(i), s.run_peaks));
  out["runs"] = runs;
  out["phases"] = trace.phases.size();
  out["stacks"] = trace.stacks.stackCount();
  json anomalies = json::array();
  for (const Anomaly& a : trace.anomalies)
    anomalies.push_back({{"kind", std::string(name(a.kind))},
                         {"count", a.count},
                         {"first_events", a.first_events},
                         {"description", std::string(describe(a.kind))}});
  out["anomalies"] = anomalies;
  json meta = json::object();
  for (const auto& [k, v] : trace.meta) meta[k] = v;
  out["meta"] = meta;
  return out.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string summaryText(const Trace& trace, const TraceSummary& s) {
  // Every string that comes from the file goes through printable(): a name cannot forge a line.
  std::string out = fmt::format("format   {}\nevents   {}\n", s.format, s.events);
  if (const std::string notice = incompleteNotice(recordingStatus(trace.meta)); !notice.empty())
    out += printable(notice) + "\n";
  if (auto it = trace.meta.find("source_format"); it != trace.meta.end())
    out += fmt::format("source   {}\n", printable(it->second));
  if (const std::string why = missingStacksReason(trace); !why.empty()) out += "stacks   none: " + printable(why) + "\n";
  if (auto it = trace.meta.find("processes_left_out"); it != trace.meta.end())
    out += "left out " + printable(it->second) + "\n";
  out += "actions ";
  for (const auto& [a, n] : s.actions) out += fmt::format(" {}={}", a, n);
  out += "\n";
  for (const auto& d : s.devices) {
    const DeviceInfo* info = trace.device(d.device);
    out += fmt::format("\n{}{}\n", deviceLabel(d.device),
                       info && !info->name.empty() ? " (" + printable(info->name) + ")" : "");
    out += fmt::format("  events            {}\n", d.events);
    out += fmt::format("  peak allocated    {} ({} bytes) at event {}, {}\n", formatBytes(d.peak_allocated.value),
                       d.peak_allocated.value, d.peak_allocated.x_index, printable(describePeakEvent(trace, d.peak_allocated)));
    out += fmt::format("  final allocated   {} ({} bytes)\n", formatBytes(d.final_allocated), d.final_allocated);
    if (const auto blocks = allocatedBlockPeak(trace, d.device))
      out += fmt::format("  peak in blocks    {} ({} bytes), as torch.cuda.max_memory_allocated() counts{}\n",
                         formatBytes(blocks->peak), blocks->peak, blocks->exact ? "" : " (not exact: see `segments`)");
    out += fmt::format("  peak reserved     {} ({} bytes)\n", formatBytes(d.peak_reserved.value), d.peak_reserved.value);
    for (const auto& [kind, peak] : d.series_peaks)
      if (kind == SeriesKind::Driver || kind == SeriesKind::DeviceUsed)
        out += fmt::format("  peak {:<13} {}\n", name(kind), formatBytes(peak));
    if (d.oom_events) out += fmt::format("  out-of-memory     {} event(s)\n", d.oom_events);
    if (d.invariants.has_device_used)
      out += fmt::format("  memory order      allocated ≤ reserved ≤ driver ≤ device used: {} of {} samples violate{}\n",
                         d.invariants.violations, d.invariants.samples_checked,
                         d.invariants.first_violation.empty() ? "" : " (first: " + printable(d.invariants.first_violation) + ")");
    if (d.has_categories) {
      out += "  category peaks   ";
      for (int c = 0; c < kCategoryCount; ++c)
        if (d.category_peaks[static_cast<size_t>(c)])
          out += fmt::format(" {}={}", name(static_cast<Category>(c)), formatBytes(d.category_peaks[static_cast<size_t>(c)]));
      out += "\n";
    }
  }
  if (!trace.runs.empty()) {
    out += "\nruns\n";
    for (size_t i = 0; i < trace.runs.size(); ++i) {
      const Run& r = trace.runs[i];
      out += fmt::format("  {}\n", printable(r.name));
      for (const RunDevicePeaks& p : s.run_peaks) {
        if (p.run != i) continue;
        out += fmt::format("    peak allocated on {:<13} {}", deviceLabel(p.device), formatBytes(p.peak_allocated));
        if (p.has_categories)
          for (int c = 0; c < kCategoryCount; ++c)
            if (p.category_peaks[static_cast<size_t>(c)])
              out += fmt::format(" {}={}", name(static_cast<Category>(c)), formatBytes(p.category_peaks[static_cast<size_t>(c)]));
        out += "\n";
      }
      size_t samples = 0;
      for (const auto& m : r.measurements) {
        if (measure::isSample(m.name)) {
          ++samples;
          continue;
        }
        out += fmt::format("    {:<34} {:.6g}{}\n", printable(m.name), m.value, m.unit.empty() ? "" : " " + printable(m.unit));
      }
      if (samples) out += fmt::format("    ({} timing samples)\n", samples);
    }
  }
  if (!trace.anomalies.empty()) {
    out += "\nanomalies (kept as recorded)\n";
    for (const Anomaly& a : trace.anomalies)
      out += fmt::format("  {:<27} {:>9}  {}; first at event {}\n", name(a.kind), a.count, describe(a.kind),
                         fmt::join(a.first_events, ", "));
  }
  if (auto it = trace.meta.find("warnings"); it != trace.meta.end())
    out += fmt::format("\nwarnings: {}\n", printable(it->second));
  return out;
}

}  // namespace sawtooth
