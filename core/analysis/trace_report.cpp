#include "core/analysis/trace_report.h"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "core/analysis/category_series.h"
#include "core/analysis/frame_filter.h"
#include "core/analysis/measurement_names.h"
#include "core/analysis/memory_plan.h"
#include "core/model/recording_status.h"
#include "core/util/format_bytes.h"

namespace sawtooth {
namespace {

std::optional<int64_t> metaInteger(const Trace& t, const std::string& key) {
  auto it = t.meta.find(key);
  if (it == t.meta.end()) return std::nullopt;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string spaced(std::string text) {
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

// "a (file:line) ← b (file:line)": the first interesting frames of a stack.
std::string framesText(const Trace& t, uint32_t stack) {
  if (stack == kNoStack) return {};
  std::string out;
  // The user's lines first: they say where in the program the memory was taken.
  for (uint32_t f : userFirstFrames(t.stacks, stack, 3)) {
    const FrameView fr = t.stacks.frame(f);
    std::string name(fr.name.size() > 60 ? fr.name.substr(0, 60) : fr.name);
    const std::string where = frameLocation(fr);
    out += (out.empty() ? "" : " ← ") + (where.empty() ? name : name + " (" + where + ")");
  }
  return out;
}

}  // namespace

std::vector<std::string> traceWarnings(const Trace& trace) {
  std::vector<std::string> out;
  if (auto it = trace.meta.find("warnings"); it != trace.meta.end()) {
    // The importers' notes, "...; ...; " joined.
    std::string_view rest = it->second;
    while (!rest.empty()) {
      const size_t end = rest.find("; ");
      const std::string_view note = rest.substr(0, end);
      if (!note.empty()) out.emplace_back(note);
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 2);
    }
  }
  for (const Anomaly& a : trace.anomalies) {
    std::string line = fmt::format("{} {} (kept as recorded)", a.count, describe(a.kind));
    if (!a.first_events.empty()) line += fmt::format("; first at event {}", a.first_events.front());
    out.push_back(std::move(line));
  }
  return out;
}

Headline headlineOf(const TraceAnalysis& analysis, const std::optional<RankComparison>& ranks) {
  const Trace& t = analysis.trace();
  Headline h;
  h.events = t.events.size();
  if (auto it = t.meta.find("device_name"); it != t.meta.end()) h.recorded_on = it->second;
  h.workload = workloadOf(t);
  h.incomplete = incompleteNotice(recordingStatus(t.meta));
  h.warnings = traceWarnings(t);
  if (ranks) {
    for (const RankPeak& r : ranks->ranks) {
      HeadlineItem item;
      item.who = fmt::format("rank {} ({})", r.rank, t.deviceName(r.device));
      item.peak_allocated = r.peak_allocated;
      if (const DeviceAnalysis* d = analysis.device(r.device)) item.out_of_memory = !d->oom_events.empty();
      h.items.push_back(std::move(item));
    }
    return h;
  }
  for (const auto& d : analysis.devices()) {
    const SeriesAnalysis* a = d->line(SeriesKind::Allocated);
    if (!a) continue;
    HeadlineItem item;
    item.who = t.deviceName(d->device);
    item.peak_allocated = a->peak.value;
    if (a->peak.point >= 0) {
      item.peak_event_index = a->peak.x_index;
      item.peak_event = describePeakEvent(t, a->peak);
    }
    if (const SeriesAnalysis* r = d->line(SeriesKind::Reserved)) item.peak_reserved = r->peak.value;
    item.out_of_memory = !d->oom_events.empty();
    h.items.push_back(std::move(item));
  }
  return h;
}

std::vector<PlanLine> planLines(const Trace& trace) {
  for (const auto& r : trace.runs)
    if (const auto plan = MemoryPlan::fromRun(r))
      return {PlanLine{fmt::format("plan: parameters + gradients + optimizer state = {:.0f}P = {}", plan->modelStateInP(),
                                   formatBytes(static_cast<int64_t>(plan->modelStateBytes()))),
                       plan->modelStateBytes(),
                       fmt::format("plan {:.0f}P = {}", plan->modelStateInP(), formatBytes(static_cast<int64_t>(plan->modelStateBytes())))}};
  return {};
}

OomReport oomReportOf(const Trace& trace, DeviceId device, const Event& e, uint64_t event, int64_t index) {
  OomReport r;
  r.device = static_cast<int16_t>(device);
  r.device_name = trace.deviceName(device);
  r.event = event;
  r.t_ns = e.t_ns;
  r.index = index;
  r.requested = e.size;
  if (e.source == Source::Allocator && e.addr > 0) r.device_free = static_cast<int64_t>(e.addr);
  r.reported_free = metaInteger(trace, "oom.device_free_bytes");
  r.reported_total = metaInteger(trace, "oom.device_total_bytes");
  return r;
}

Table oomBlocksColumns() {
  Table table;
  table.columns = {{"size", Unit::Bytes},        {"category", Unit::Text}, {"phase", Unit::Text},
                   {"allocated at", Unit::Nanoseconds}, {"address", Unit::Text},  {"frames", Unit::Text}};
  return table;
}

void addOomBlock(Table& table, const Trace& trace, const LiveBlock& b, int64_t t_ns, const std::optional<std::string>& phase) {
  table.rows.push_back({static_cast<double>(b.size), spaced(std::string(name(b.category))), phase ? Cell(*phase) : Cell(),
                        static_cast<double>(t_ns), fmt::format("0x{:x}", b.addr), framesText(trace, b.stack)});
}

std::optional<OomReport> oomReport(const TraceAnalysis& analysis) {
  const DeviceAnalysis* device = nullptr;
  for (const auto& d : analysis.devices())
    if (!d->oom_events.empty() && (!device || d->oom_events.front() < device->oom_events.front())) device = d.get();
  if (!device) return std::nullopt;
  const Trace& t = analysis.trace();
  const uint64_t event = device->oom_events.front();
  OomReport r = oomReportOf(t, device->device, t.events.at(event), event, device->series.indexOfEvent(event));
  r.allocated = device->series.allocated.valueAfterEvent(r.event);
  const auto live = liveBlocksAt(t, device->device, r.event);
  r.live_blocks = live.size();
  for (const auto& b : live) r.itemised += b.size;
  r.blocks = oomBlocksColumns();
  for (size_t i = 0; i < live.size() && i < kMaxOomBlocks; ++i)
    addOomBlock(r.blocks, t, live[i], t.events.tNs()[live[i].alloc_event],
                live[i].phase < t.phases.size() ? t.phases[live[i].phase].name : std::optional<std::string>());
  return r;
}

Table runsTable(const Trace& trace) {
  Table table;
  table.columns.push_back({"run", Unit::Text});
  // Configuration that differs between runs first (what makes each run what it is).
  std::vector<std::string> config_keys;
  for (const auto& r : trace.runs)
    for (const auto& [k, v] : r.config)
      if (std::find(config_keys.begin(), config_keys.end(), k) == config_keys.end()) config_keys.push_back(k);
  std::vector<std::string> shown_config;
  for (const auto& k : config_keys) {
    std::set<std::string> values;
    for (const auto& r : trace.runs) values.insert(r.configValue(k).value_or(""));
    if (values.size() > 1 || trace.runs.size() == 1) {
      shown_config.push_back(k);
      table.columns.push_back({k, Unit::Text});
    }
  }
  struct MeasurementColumn {
    std::string name;
    double scale = 1;
  };
  std::vector<MeasurementColumn> measurements;
  for (const auto& r : trace.runs)
    for (const auto& m : r.measurements) {
      if (measure::isSample(m.name)) continue;
      if (std::any_of(measurements.begin(), measurements.end(), [&](const auto& c) { return c.name == m.name; })) continue;
      TableColumn column{spaced(m.name), Unit::Number, m.unit};
      double scale = 1;
      if (m.unit == measure::kBytes) column = {spaced(m.name), Unit::Bytes, ""};
      else if (m.unit == measure::kMs) column = {spaced(m.name), Unit::Milliseconds, ""};
      else if (m.unit == measure::kRatio) column = {spaced(m.name), Unit::Ratio, ""};
      else if (m.unit == measure::kCount) column = {spaced(m.name), Unit::Count, ""};
      else if (m.unit == measure::kTflopPerS) column = {spaced(m.name), Unit::FlopPerSecond, ""}, scale = 1e12;
      measurements.push_back({m.name, scale});
      table.columns.push_back(std::move(column));
    }
  for (const auto& r : trace.runs) {
    std::vector<Cell> row{r.name};
    for (const auto& k : shown_config) row.emplace_back(r.configValue(k).value_or(""));
    for (const auto& c : measurements) {
      const Measurement* m = r.measurement(c.name);
      row.push_back(m ? Cell(m->value * c.scale) : Cell());
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table precisionTable(const std::vector<PrecisionRow>& rows) {
  Table t;
  t.columns = {{"mode", Unit::Text},         {"median", Unit::Milliseconds},        {"min", Unit::Milliseconds},
               {"max", Unit::Milliseconds},  {"spread (±)", Unit::Share},               {"against fp32", Unit::Speedup},
               {"against TF32", Unit::Speedup}, {"throughput", Unit::FlopPerSecond}, {"peak allocated", Unit::Bytes},
               {"note", Unit::Text},         {"settings", Unit::Text}};
  for (const PrecisionRow& r : rows) {
    auto optional = [](const std::optional<double>& v, double scale = 1) { return v ? Cell(*v * scale) : Cell(); };
    // A speed-up only where it is one: noise, too few samples or a comparison the device makes
    // meaningless leave the cell empty and say why in the note.
    auto speedup = [&](const std::optional<TimingChange>& c) { return c && c->meaningful() && r.caveat.empty() ? Cell(c->speedup) : Cell(); };
    std::vector<std::string> notes;
    if (!r.caveat.empty()) notes.push_back(r.caveat);
    else {
      if (r.mode != "fp32" && r.vs_fp32 && !r.vs_fp32->meaningful()) notes.push_back("against fp32: " + speedupVerdictText(*r.vs_fp32));
      if (r.mode != "tf32" && r.mode != "fp32" && r.vs_tf32 && !r.vs_tf32->meaningful())
        notes.push_back("against TF32: " + speedupVerdictText(*r.vs_tf32));
    }
    std::string note;
    for (const std::string& n : notes) note += (note.empty() ? "" : "; ") + n;
    t.rows.push_back({r.mode, r.time.median_ms, r.time.min_ms, r.time.max_ms, r.time.samples >= 2 ? Cell(r.time.spread()) : Cell(),
                      speedup(r.vs_fp32), speedup(r.vs_tf32), optional(r.tflops, 1e12), optional(r.peak_allocated), note,
                      r.settings});
  }
  return t;
}

namespace {

// What the runs table alone gives (a trace read on demand has these at once).
void addRunFigures(TraceReport& report, const Trace& t) {
  report.workload = workloadOf(t);
  report.plan_lines = planLines(t);
  report.peak_groups = peakComparison(t);
  report.precision = precisionResults(t);
  report.precision_table = precisionTable(report.precision);
  if (!report.precision.empty() && !t.runs.empty()) {
    std::string shared;
    for (const auto& [k, v] : t.runs.front().config)
      if (k != "mode" && k != "modes" && k.find("precision") == std::string::npos && k != "autocast" &&
          k != "loss_scaling" && k != "allow_tf32_cublas")
        shared += (shared.empty() ? "" : ", ") + k + " " + v;
    report.precision_shared_config = shared;
  }
  report.runs = runsTable(t);
}

}  // namespace

std::shared_ptr<const TraceReport> buildTraceReport(std::shared_ptr<const TraceAnalysis> analysis) {
  auto report = std::make_shared<TraceReport>();
  const Trace& t = analysis->trace();
  addRunFigures(*report, t);
  report->ranks = compareRanks(t);
  report->headline = headlineOf(*analysis, report->ranks);
  report->plan_device = analysis->device(0) ? 0 : kCpuDevice;
  report->plan_rows = anatomyPlan(t, report->plan_device);
  report->oom = oomReport(*analysis);
  report->analysis = std::move(analysis);
  return report;
}

TraceReport runFiguresReport(const Trace& tables) {
  TraceReport report;
  addRunFigures(report, tables);
  return report;
}

}  // namespace sawtooth
