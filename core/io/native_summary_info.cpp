#include "core/io/native_summary_info.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <memory>

#include "core/analysis/summary_builder.h"
#include "core/analysis/timeline_model.h"
#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"
#include "core/model/recording_status.h"
#include "core/model/trace.h"
#include "core/util/format_bytes.h"
#include "core/util/printable.h"

namespace sawtooth {
namespace {

using summary::SpanKind;
using summary::SpanRow;

// The meta table of a file Sawtooth wrote holds a few dozen keys; past this it is not one.
constexpr size_t kMaxMetaRows = 4096;

Status readMeta(native::FileSummarySource& source, std::map<std::string, std::string>& meta) {
  auto st = source.eventsDatabase().prepare("SELECT key, value FROM meta");
  if (!st) return st.error();
  while (st->step()) {
    if (meta.size() >= kMaxMetaRows)
      return Error{fmt::format("{}: its meta table holds more than {} rows", source.place().events, kMaxMetaRows)};
    meta[std::string(st->text(0))] = std::string(st->text(1));
  }
  if (st->failed()) return Error{st->error()};
  return Ok{};
}

Status readDeviceNames(native::FileSummarySource& source, std::vector<SummaryDeviceInfo>& devices) {
  auto st = source.eventsDatabase().prepare("SELECT device, ifnull(name, '') FROM devices");
  if (!st) return st.error();
  while (st->step()) {
    const int64_t id = st->int64(0);
    for (SummaryDeviceInfo& d : devices)
      if (d.device == id) d.name = std::string(st->text(1));
  }
  if (st->failed()) return Error{st->error()};
  return Ok{};
}

// The steps: counted by the file, and the one holding the device's peak found at the peak's time.
Status readSteps(native::FileSummarySource& source, SummaryDeviceInfo& d) {
  auto count = source.spanCount(d.device, SpanKind::Step);
  if (!count) return count.error();
  d.steps = *count;
  if (!d.steps || d.peak_allocated.point < 0) return Ok{};
  std::vector<SpanRow> rows;
  const int64_t t = d.peak_allocated.t_ns;
  if (Status st = source.spans(d.device, SpanKind::Step, t, t == INT64_MAX ? t : t + 1, rows); !st) return st;
  for (const SpanRow& r : rows)
    if (r.peak_point >= 0 && (!d.peak_step || r.peak_allocated > d.peak_step_allocated)) {
      d.peak_step = r.id;
      d.peak_step_allocated = r.peak_allocated;
    }
  return Ok{};
}

Result<SummaryPeak> peakOf(TimelineModel& model, DeviceId device, int series) {
  auto p = model.peak(device, series);
  if (!p) return p.error();
  return SummaryPeak{p->value, p->point, p->seq, p->t_ns};
}

Status readDevice(TimelineModel& model, native::FileSummarySource& file, const TimelineModel::Device& md,
                  SummaryDeviceInfo& d) {
  d.device = md.device;
  d.allocator_events = md.allocator_points;
  d.t_first_ns = md.t_first;
  d.t_last_ns = md.t_last;
  d.categorised = md.categorised;
  auto allocated = peakOf(model, md.device, summary::kAllocated);
  if (!allocated) return allocated.error();
  d.peak_allocated = *allocated;
  auto reserved = peakOf(model, md.device, summary::kReserved);
  if (!reserved) return reserved.error();
  d.peak_reserved = *reserved;
  if (const auto* s = md.find(summary::kAllocated)) d.final_allocated = s->last;
  if (const auto* s = md.find(summary::kReserved)) d.final_reserved = s->last;
  for (auto [series, into] : {std::pair{summary::kDriver, &d.peak_driver}, std::pair{summary::kDeviceUsed, &d.peak_device_used}}) {
    const auto* s = md.find(series);
    if (!s || s->points == 0) continue;
    auto p = peakOf(model, md.device, series);
    if (!p) return p.error();
    *into = p->value;
  }
  if (d.categorised && d.peak_allocated.point >= 0) {
    int64_t below = 0;
    for (int layer = 0; layer < summary::kCategoryLayers; ++layer) {
      auto v = model.valueAfter(md.device, summary::layerSeries(layer), d.peak_allocated.point);
      if (!v) return v.error();
      d.at_peak[static_cast<size_t>(layer)] = *v - below;
      below = *v;
    }
    d.at_peak[kCategoryCount - 1] = d.peak_allocated.value - below;
  }
  return readSteps(file, d);
}

std::string categoriesText(const std::array<int64_t, kCategoryCount>& bytes) {
  std::string out;
  for (int c = 0; c < kCategoryCount; ++c)
    if (bytes[static_cast<size_t>(c)])
      out += fmt::format(" {}={}", name(static_cast<Category>(c)), formatBytes(bytes[static_cast<size_t>(c)]));
  return out;
}

}  // namespace

Result<SummaryInfo> readSummaryInfo(const std::string& path, const ReadLimits& limits) {
  SummaryInfo info;
  info.path = path;
  std::string why;
  auto found = findSummaries(path, &why);
  if (!found) return found.error();
  SummaryPlace place;
  if (*found) {
    place = **found;
  } else {
    auto built = buildCachedSummaries(path, why);
    if (!built) return built.error();
    place = *built;
  }
  info.summaries_from = place.cached ? place.summaries : "the file";
  info.why_cached = place.cached ? (place.why_cached.empty() ? why : place.why_cached) : "";
  auto opened = native::FileSummarySource::open(place, limits);
  if (!opened) return opened.error();
  native::FileSummarySource* file = opened->get();
  if (Status st = readMeta(*file, info.meta); !st) return st.error();
  std::shared_ptr<summary::SummarySource> source(std::move(*opened));
  auto count = source->eventCount();
  if (!count) return count.error();
  info.events = *count;
  TimelineModel model(source);
  if (Status st = model.refresh(); !st) return st.error();
  for (const TimelineModel::Device& md : model.devices()) {
    SummaryDeviceInfo d;
    if (Status st = readDevice(model, *file, md, d); !st) return st.error();
    info.devices.push_back(std::move(d));
  }
  if (Status st = readDeviceNames(*file, info.devices); !st) return st.error();
  auto ooms = source->ooms(1);
  if (!ooms) return ooms.error();
  if (*ooms) {
    info.oom_events = (*ooms)->count;
    if (!(*ooms)->first.empty()) info.first_oom = (*ooms)->first.front();
  }
  return info;
}

std::string summaryInfoText(const SummaryInfo& info) {
  // Every string that comes from the file goes through printable(): a name cannot forge a line.
  std::string out = fmt::format("events   {}\n", info.events);
  out += info.why_cached.empty() ? "read     from the file's summaries (not its events)\n"
                                 : fmt::format("read     from summaries built into {} ({})\n", printable(info.summaries_from),
                                               printable(info.why_cached));
  if (const std::string notice = incompleteNotice(recordingStatus(info.meta)); !notice.empty())
    out += printable(notice) + "\n";
  for (const SummaryDeviceInfo& d : info.devices) {
    out += fmt::format("\n{}{}\n", deviceLabel(d.device), d.name.empty() ? "" : " (" + printable(d.name) + ")");
    out += fmt::format("  allocator events  {}\n", d.allocator_events);
    out += fmt::format("  peak allocated    {} ({} bytes) at allocator event {}, {:.3f} s\n", formatBytes(d.peak_allocated.value),
                       d.peak_allocated.value, d.peak_allocated.point, (d.peak_allocated.t_ns - d.t_first_ns) / 1e9);
    out += fmt::format("  final allocated   {} ({} bytes)\n", formatBytes(d.final_allocated), d.final_allocated);
    out += fmt::format("  peak reserved     {} ({} bytes)\n", formatBytes(d.peak_reserved.value), d.peak_reserved.value);
    if (d.peak_driver) out += fmt::format("  peak driver       {}\n", formatBytes(*d.peak_driver));
    if (d.peak_device_used) out += fmt::format("  peak device used  {}\n", formatBytes(*d.peak_device_used));
    if (d.categorised) out += fmt::format("  at the peak      {}\n", categoriesText(d.at_peak));
    if (d.steps)
      out += fmt::format("  steps             {}{}\n", d.steps,
                         d.peak_step ? fmt::format(", the peak in step {} ({})", *d.peak_step, formatBytes(d.peak_step_allocated)) : "");
  }
  if (info.oom_events) {
    out += fmt::format("\nout-of-memory events  {}", *info.oom_events);
    if (info.first_oom)
      out += fmt::format(" (the first: event {} on {}; `sawtooth-trace oom --summaries` explains it)",
                         info.first_oom->second, deviceLabel(info.first_oom->first));
    out += "\n";
  }
  out += "\n(from the summaries: `sawtooth-trace info` without --summaries reads every event for actions, the peak in "
         "allocator blocks and the memory-order check";
  out += info.oom_events ? ")\n"
                         : "; these summaries keep no index of out-of-memory events: `sawtooth-trace oom --summaries` "
                           "looks for one in bounded memory)\n";
  return out;
}

std::string summaryInfoJson(const SummaryInfo& info, int indent) {
  using nlohmann::json;
  json out;
  out["events"] = info.events;
  out["summaries_from"] = info.why_cached.empty() ? json("file") : json(info.summaries_from);
  if (!info.why_cached.empty()) out["summaries_built_because"] = info.why_cached;
  if (const RecordingStatus rs = recordingStatus(info.meta); !rs.complete)
    out["incomplete_recording"] = {{"reason", rs.reason}, {"detail", rs.detail}};
  json devices = json::array();
  for (const SummaryDeviceInfo& d : info.devices) {
    json dj = {{"device", d.device},
               {"label", deviceLabel(d.device)},
               {"allocator_events", d.allocator_events},
               {"t_first_ns", d.t_first_ns},
               {"t_last_ns", d.t_last_ns},
               {"peak_allocated_bytes", d.peak_allocated.value},
               {"peak_allocated_point", d.peak_allocated.point},
               {"peak_allocated_seq", d.peak_allocated.seq},
               {"peak_allocated_t_ns", d.peak_allocated.t_ns},
               {"final_allocated_bytes", d.final_allocated},
               {"peak_reserved_bytes", d.peak_reserved.value},
               {"final_reserved_bytes", d.final_reserved},
               {"steps", d.steps}};
    if (!d.name.empty()) dj["name"] = d.name;
    if (d.peak_driver) dj["peak_driver_bytes"] = *d.peak_driver;
    if (d.peak_device_used) dj["peak_device_used_bytes"] = *d.peak_device_used;
    if (d.peak_step) dj["peak_step"] = {{"id", *d.peak_step}, {"peak_allocated_bytes", d.peak_step_allocated}};
    if (d.categorised) {
      json cats = json::object();
      for (int c = 0; c < kCategoryCount; ++c) cats[std::string(name(static_cast<Category>(c)))] = d.at_peak[static_cast<size_t>(c)];
      dj["at_peak"] = cats;
    }
    devices.push_back(std::move(dj));
  }
  out["devices"] = devices;
  out["oom_events"] = info.oom_events ? json(*info.oom_events) : json(nullptr);  // null: no index
  if (info.first_oom) out["first_oom"] = {{"device", info.first_oom->first}, {"event", info.first_oom->second}};
  json meta = json::object();
  for (const auto& [k, v] : info.meta) meta[k] = v;
  out["meta"] = meta;
  return out.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace sawtooth
