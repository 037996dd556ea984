#include "core/analysis/ladder_measured.h"

#include <fmt/format.h>

#include "core/model/meta_keys.h"

namespace sawtooth {

std::string rungOfRun(const Run& run, const std::string& trace_rung) {
  if (!trace_rung.empty()) return trace_rung;
  if (run.workload == "checkpointing") {
    const auto every = run.configValue("checkpoint_every");
    if (!every || *every == "never") return "";
    // Recordings from before both forms were measured hold the reentrant form only.
    const std::string form = run.configValue("checkpoint_form").value_or("reentrant");
    return fmt::format("checkpoint:every={}{}", *every, form == "reentrant" ? ":reentrant" : "");
  }
  if (run.workload == "accumulation") {
    const auto k = run.configValue("k");
    return k && *k != "1" ? "accumulate:k=" + *k : "";
  }
  if (run.workload == "precision") {
    const auto mode = run.configValue("mode");
    return mode && (*mode == "bf16" || *mode == "fp16") ? *mode : "";
  }
  if (run.workload == "data-parallel") {
    const auto variant = run.configValue("variant"), world = run.configValue("world_size");
    return variant && *variant == "sharded" && world ? "zero1:N=" + *world : "";
  }
  return "";
}

namespace {

// A run's rank: its configuration's, or a merged program recording's run name ("rank 1").
std::optional<std::string> rankOf(const Run& run) {
  if (auto r = run.configValue("rank")) return r;
  if (run.name.rfind("rank ", 0) == 0) return run.name.substr(5);
  return std::nullopt;
}

}  // namespace

std::vector<MeasuredRung> measuredRungs(const LadderInput& base, const Trace& trace, const std::string& label,
                                        bool same_trace, const std::string& rung) {
  std::vector<MeasuredRung> out;
  std::string trace_rung = rung;
  if (auto it = trace.meta.find(std::string(meta::kRung)); it != trace.meta.end() && trace_rung.empty())
    trace_rung = it->second;
  auto measure = [&](const std::string& run_name, const std::string& row, const std::string& source) {
    auto in = ladderInput(trace, LadderSelection{run_name, base.device, {}});
    if (!in) return;
    MeasuredRung m;
    m.row = row;
    m.source = source;
    m.peak_allocated = in->peak_allocated;
    m.peak_allocated_blocks = in->peak_allocated_blocks;
    m.peak_reserved = in->peak_reserved;
    // The same measurement as the baseline's (step time, fwd+bwd, time per global batch).
    if (in->timing && base.timing && in->timing->what == base.timing->what) m.step_ms = in->timing->median_ms;
    out.push_back(std::move(m));
  };
  if (trace.runs.empty()) {
    if (!trace_rung.empty() && !same_trace) measure("", trace_rung, fmt::format("{} (--rung {})", label, trace_rung));
    return out;
  }
  for (const Run& run : trace.runs) {
    if (same_trace && run.name == base.run) continue;
    const std::string row = rungOfRun(run, trace_rung);
    if (row.empty()) continue;
    // A rank is compared with the same rank.
    if (const auto rank = rankOf(run); rank && base.world_size > 1 && *rank != std::to_string(base.rank)) continue;
    if (const auto rank = rankOf(run); rank && base.world_size == 1 && *rank != "0") continue;
    measure(run.name, row, trace_rung.empty() ? fmt::format("run {} of {}", run.name, label)
                                              : fmt::format("{} (--rung {})", label, trace_rung));
  }
  return out;
}

}  // namespace sawtooth
