#include "core/analysis/comparison.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/analysis/experiment_results.h"
#include "core/analysis/step_alignment.h"
#include "core/model/trace_merge.h"

namespace sawtooth {

Table differencesTable(const std::vector<DevicePeaks>& a, const std::vector<DevicePeaks>& b, const Trace& a_tables,
                       const Trace& b_tables) {
  Table t;
  t.columns = {{"what", Unit::Text}, {"A", Unit::Bytes}, {"B", Unit::Bytes}, {"B − A", Unit::Bytes}, {"B / A", Unit::Ratio}};
  auto row = [&](std::string what, double va, double vb) {
    t.rows.push_back({std::move(what), va, vb, vb - va, va > 0 ? Cell(vb / va - 1) : Cell()});
  };
  for (const DevicePeaks& da : a) {
    auto db = std::find_if(b.begin(), b.end(), [&](const DevicePeaks& d) { return d.device == da.device; });
    if (db == b.end()) continue;
    const std::string dev = deviceLabel(da.device);
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::Driver, SeriesKind::DeviceUsed}) {
      auto peak = [kind](const DevicePeaks& d) -> std::optional<int64_t> {
        for (const auto& [k, v] : d.peaks)
          if (k == kind) return v;
        return std::nullopt;
      };
      const auto pa = peak(da), pb = peak(*db);
      if (!pa || !pb) continue;
      std::string what = std::string(name(kind));
      std::replace(what.begin(), what.end(), '_', ' ');
      row(fmt::format("{} peak {}", dev, what), static_cast<double>(*pa), static_cast<double>(*pb));
    }
  }
  for (const auto& ga : peakComparison(a_tables))
    for (const auto& gb : peakComparison(b_tables))
      if (ga.run == gb.run) row(fmt::format("run {} peak allocated", ga.run), ga.peak_allocated, gb.peak_allocated);
  return t;
}

std::string alignmentNote(const std::string& name_a, const std::string& name_b, Alignment alignment,
                          const std::string& steps) {
  switch (alignment) {
    case Alignment::EventIndex:
      return fmt::format("A: {} · B: {} · aligned by allocation event (each device's own count)", name_a, name_b);
    case Alignment::Time: return fmt::format("A: {} · B: {} · aligned in time, both from their start", name_a, name_b);
    case Alignment::Step: return fmt::format("A: {} · B: {} · {}", name_a, name_b, steps);
  }
  return {};
}

std::string stepsNote(const StepStarts& a, const StepStarts& b) {
  if (a.source.empty() || b.source.empty())
    return fmt::format("aligned in time: no steps found in {} (steps come from forward phases, ProfilerStep or "
                       "Optimizer.step annotations)",
                       a.source.empty() ? (b.source.empty() ? "either trace" : "A") : "B");
  return fmt::format("aligned by step: B's {} steps (from its {}) stretched onto A's (from its {})",
                     std::min(a.t_ns.size(), b.t_ns.size()), b.source, a.source);
}

namespace {

std::vector<DevicePeaks> devicePeaks(const TraceAnalysis& analysis) {
  std::vector<DevicePeaks> out;
  for (const auto& d : analysis.devices()) {
    DevicePeaks p{d->device, {}};
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::Driver, SeriesKind::DeviceUsed})
      if (const SeriesAnalysis* line = d->line(kind)) p.peaks.emplace_back(kind, line->peak.value);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

Result<Comparison> compareTraces(const TraceAnalysis& a, const std::string& name_a, const TraceAnalysis& b,
                                 const std::string& name_b, Alignment alignment, Progress* progress) {
  Comparison out;
  out.alignment = alignment;
  out.by_time = alignment != Alignment::EventIndex;
  MergeInput side_a{&a.trace(), {}, 0, "A", -1};
  MergeInput side_b{&b.trace(), {}, kCompareOffset, "B", -1};
  std::string steps;
  if (alignment == Alignment::Step) {
    const StepStarts sa = findStepStarts(a.trace()), sb = findStepStarts(b.trace());
    steps = stepsNote(sa, sb);
    if (!sa.source.empty() && !sb.source.empty()) side_b.time = stepWarp(sa.t_ns, sb.t_ns);
  }
  out.note = alignmentNote(name_a, name_b, alignment, steps);
  const MergeInput inputs[] = {side_a, side_b};
  auto merged = mergeTraces(inputs);
  if (!merged) return merged.error();
  if (progress && progress->cancelled()) return Error{"cancelled"};
  merged->format = "comparison";
  merged->meta["comparison"] = fmt::format("A: {}; B: {}", name_a, name_b);
  Progress analysing = progress ? progress->sub(300, 1000) : Progress();
  auto analysis = std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(std::move(*merged)),
                                                        progress ? &analysing : nullptr);
  if (progress && progress->cancelled()) return Error{"cancelled"};
  out.merged = std::move(analysis);
  out.differences = differencesTable(devicePeaks(a), devicePeaks(b), a.trace(), b.trace());
  return out;
}

}  // namespace sawtooth
