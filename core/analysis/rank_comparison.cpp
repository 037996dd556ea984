#include "core/analysis/rank_comparison.h"

#include <algorithm>
#include <charconv>

#include "core/analysis/measurement_names.h"
#include "core/analysis/memory_plan.h"
#include "core/analysis/rank_split.h"
#include "core/analysis/run_peaks.h"

namespace sawtooth {
namespace {

std::optional<int> integer(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  int v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<RankComparison> compareRanks(const Trace& trace) {
  RankComparison out;
  const auto per_run = runPeaks(trace);
  for (size_t r = 0; r < trace.runs.size(); ++r) {
    const Run& run = trace.runs[r];
    const auto rank = integer(run.configValue("rank"));
    if (!rank) continue;
    RankPeak p;
    p.rank = *rank;
    p.run = static_cast<uint16_t>(r);
    for (const auto& peak : per_run)
      if (peak.run == p.run && peak.peak_allocated > p.peak_allocated) {
        p.peak_allocated = peak.peak_allocated;
        p.device = peak.device;
      }
    if (const auto plan = MemoryPlan::fromRun(run)) {
      p.planned_optimizer_state = plan->optimizer_state_bytes;
      out.parameter_bytes = std::max(out.parameter_bytes, plan->parameter_bytes);
    }
    if (const auto world = integer(run.configValue("world_size"))) out.world_size = std::max(out.world_size, *world);
    if (out.variant.empty()) out.variant = run.configValue("variant").value_or("");
    out.ranks.push_back(p);
  }
  if (out.ranks.empty()) return std::nullopt;
  std::sort(out.ranks.begin(), out.ranks.end(), [](const RankPeak& a, const RankPeak& b) { return a.rank < b.rank; });
  out.world_size = std::max(out.world_size, static_cast<int>(out.ranks.size()));
  out.lowest = out.highest = out.ranks.front().peak_allocated;
  for (const RankPeak& p : out.ranks) {
    out.lowest = std::min(out.lowest, p.peak_allocated);
    out.highest = std::max(out.highest, p.peak_allocated);
  }
  out.imbalance = out.lowest > 0 ? static_cast<double>(out.highest) / static_cast<double>(out.lowest) : 0;
  for (RankPeak& p : out.ranks)
    p.relative_to_lowest = out.lowest > 0 ? static_cast<double>(p.peak_allocated) / static_cast<double>(out.lowest) : 0;
  if (out.parameter_bytes > 0) {
    out.replicated_bytes = replicatedModelStateBytes(out.parameter_bytes);
    out.sharded_bytes = shardedModelStateBytes(out.parameter_bytes, out.world_size);
  }
  return out;
}

Result<std::vector<RankLane>> rankLanes(const Trace& trace, Progress* progress) {
  std::vector<RankLane> lanes;
  const auto slices = splitByRank(trace);
  size_t done = 0;
  for (const RankSlice& slice : slices) {
    if (progress && progress->cancelled()) return Error{"cancelled"};
    lanes.push_back(RankLane{slice.rank, std::make_shared<const TraceAnalysis>(slice.trace)});
    if (progress) progress->report(++done, slices.size());
  }
  return lanes;
}

}  // namespace sawtooth
