#include "core/analysis/comparison.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/analysis/experiment_results.h"
#include "core/analysis/step_alignment.h"
#include "core/model/trace_merge.h"

namespace sawtooth {
namespace {

Table differencesTable(const TraceAnalysis& a, const TraceAnalysis& b) {
  Table t;
  t.columns = {{"what", Unit::Text}, {"A", Unit::Bytes}, {"B", Unit::Bytes}, {"B − A", Unit::Bytes}, {"B / A", Unit::Ratio}};
  auto row = [&](std::string what, double va, double vb) {
    t.rows.push_back({std::move(what), va, vb, vb - va, va > 0 ? Cell(vb / va - 1) : Cell()});
  };
  for (const auto& da : a.devices()) {
    const DeviceAnalysis* db = b.device(da->device);
    if (!db) continue;
    const std::string dev = deviceLabel(da->device);
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::Driver, SeriesKind::DeviceUsed}) {
      const SeriesAnalysis* la = da->line(kind);
      const SeriesAnalysis* lb = db->line(kind);
      if (!la || !lb) continue;
      std::string what = std::string(name(kind));
      std::replace(what.begin(), what.end(), '_', ' ');
      row(fmt::format("{} peak {}", dev, what), static_cast<double>(la->peak.value), static_cast<double>(lb->peak.value));
    }
  }
  for (const auto& ga : peakComparison(a.trace()))
    for (const auto& gb : peakComparison(b.trace()))
      if (ga.run == gb.run) row(fmt::format("run {} peak allocated", ga.run), ga.peak_allocated, gb.peak_allocated);
  return t;
}

}  // namespace

Result<Comparison> compareTraces(const TraceAnalysis& a, const std::string& name_a, const TraceAnalysis& b,
                                 const std::string& name_b, Alignment alignment, Progress* progress) {
  Comparison out;
  out.alignment = alignment;
  out.by_time = alignment != Alignment::EventIndex;
  MergeInput side_a{&a.trace(), {}, 0, "A", -1};
  MergeInput side_b{&b.trace(), {}, kCompareOffset, "B", -1};
  switch (alignment) {
    case Alignment::EventIndex:
      out.note = fmt::format("A: {} · B: {} · aligned by allocation event (each device's own count)", name_a, name_b);
      break;
    case Alignment::Time:
      out.note = fmt::format("A: {} · B: {} · aligned in time, both from their start", name_a, name_b);
      break;
    case Alignment::Step: {
      const StepStarts sa = findStepStarts(a.trace()), sb = findStepStarts(b.trace());
      if (sa.source.empty() || sb.source.empty()) {
        out.note = fmt::format("A: {} · B: {} · aligned in time: no steps found in {} (steps come from forward phases, "
                               "ProfilerStep or Optimizer.step annotations)",
                               name_a, name_b, sa.source.empty() ? (sb.source.empty() ? "either trace" : "A") : "B");
        break;
      }
      side_b.time = stepWarp(sa.t_ns, sb.t_ns);
      const size_t n = std::min(sa.t_ns.size(), sb.t_ns.size());
      out.note = fmt::format("A: {} · B: {} · aligned by step: B's {} steps (from its {}) stretched onto A's (from its {})",
                             name_a, name_b, n, sb.source, sa.source);
      break;
    }
  }
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
  out.differences = differencesTable(a, b);
  return out;
}

}  // namespace sawtooth
