#include "core/analysis/ladder_measured.h"

#include <fmt/format.h>

#include <optional>
#include <string_view>

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

std::optional<std::string> valueOf(const std::vector<std::pair<std::string, std::string>>& config, std::string_view key) {
  for (const auto& [k, v] : config)
    if (k == key) return v;
  return std::nullopt;
}

// Parameters that choose a workload's rung, what they set, and what differs between any two runs
// of one program (its process, its rank, its environment).
bool setsTheRung(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "checkpoint_every", "checkpoint_form", "checkpointed_blocks",  // checkpointing
      "k", "micro_batch",                                             // accumulation
      "mode", "autocast", "loss_scaling", "float32_matmul_precision", "allow_tf32_cublas",  // precision
      "variant", "rank", "world_size", "local_rank",                  // data parallel
      "pid", "process_argv", "torch", "torch_cuda", "python",         // a process's own
      // How long it ran and which of its variants it ran: not what one step holds.
      "steps", "timed_steps", "warmup", "repeats", "timeout_s", "variants", "modes",
  };
  for (std::string_view k : kKeys)
    if (key == k) return true;
  return key.starts_with("env.");
}

// The model a workload trains: the data-parallel workload is the anatomy MLP on N ranks (the
// anatomy recording predicts its ZeRO-1 run).
std::string_view modelOf(std::string_view workload) { return workload == "data-parallel" ? "anatomy" : workload; }

}  // namespace

std::string otherProgram(const LadderInput& base, const Run& run) {
  if (base.workload.empty()) return "the baseline does not say which program it recorded";
  if (modelOf(run.workload) != modelOf(base.workload))
    return fmt::format("it records {}, not {}", run.workload.empty() ? std::string("an unnamed program") : run.workload,
                       base.workload);
  if (base.workload == "program") {
    for (const char* key : {"command", "cwd"}) {
      const auto mine = valueOf(base.config, key), theirs = run.configValue(key);
      if (!mine || !theirs) return fmt::format("its {} is not recorded", key);
      if (*mine != *theirs) return fmt::format("its {} is '{}', not '{}'", key, *theirs, *mine);
    }
    return "";
  }
  for (const auto& [key, value] : base.config) {
    if (setsTheRung(key)) continue;
    if (const auto theirs = run.configValue(key); theirs && *theirs != value)
      return fmt::format("its {} is {}, not {}", key, *theirs, value);
  }
  return "";
}

std::vector<MeasuredRung> measuredRungs(const LadderInput& base, const Trace& trace, const std::string& label,
                                        bool same_trace, const std::string& rung, bool same_program_only) {
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
    // No run to say which program it recorded: taken only when asked for.
    if (!trace_rung.empty() && !same_trace && !same_program_only)
      measure("", trace_rung, fmt::format("{} (--rung {})", label, trace_rung));
    return out;
  }
  for (const Run& run : trace.runs) {
    if (same_trace && run.name == base.run) continue;
    const std::string row = rungOfRun(run, trace_rung);
    if (row.empty()) continue;
    // A rank is compared with the same rank.
    if (const auto rank = rankOf(run); rank && base.world_size > 1 && *rank != std::to_string(base.rank)) continue;
    if (const auto rank = rankOf(run); rank && base.world_size == 1 && *rank != "0") continue;
    if (same_program_only && !same_trace && !otherProgram(base, run).empty()) continue;
    measure(run.name, row, trace_rung.empty() ? fmt::format("run {} of {}", run.name, label)
                                              : fmt::format("{} (--rung {})", label, trace_rung));
  }
  return out;
}

}  // namespace sawtooth
