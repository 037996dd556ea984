#include "core/analysis/experiment_results.h"

#include <fmt/format.h>

#include "core/analysis/category_series.h"
#include "core/analysis/measurement_names.h"
#include "core/analysis/memory_plan.h"
#include "core/analysis/result_text.h"
#include "core/util/format_bytes.h"

namespace sawtooth {
namespace {

std::optional<double> value(const Run& run, std::string_view name) {
  if (const Measurement* m = run.measurement(name)) return m->value;
  return std::nullopt;
}

std::optional<double> peakOf(const Run& run) {
  if (auto v = value(run, measure::kPeakAllocatedBytes)) return v;
  return value(run, measure::kTorchPeakAllocatedBytes);
}

const Run* runNamed(const Trace& trace, std::string_view name) {
  for (const auto& r : trace.runs)
    if (r.name == name) return &r;
  return nullptr;
}

const Trace* traceOf(const std::vector<const Trace*>& traces, std::string_view workload) {
  for (const Trace* t : traces)
    if (t && workloadOf(*t) == workload) return t;
  return nullptr;
}

std::string percent(double change) { return signedPercentText(change); }

}  // namespace

std::string workloadOf(const Trace& trace) {
  if (auto it = trace.meta.find("workload"); it != trace.meta.end()) return it->second;
  return trace.runs.empty() ? std::string() : trace.runs.front().workload;
}

std::optional<Timing> runTiming(const Run& run) {
  using namespace measure;
  for (const auto& m : run.measurements) {
    if (m.name.size() <= kMedianMsSuffix.size() || !m.name.ends_with(kMedianMsSuffix)) continue;
    Timing t;
    t.name = m.name.substr(0, m.name.size() - kMedianMsSuffix.size());
    t.median_ms = m.value;
    t.min_ms = value(run, timing(t.name, kMinMsSuffix)).value_or(m.value);
    t.max_ms = value(run, timing(t.name, kMaxMsSuffix)).value_or(m.value);
    t.samples = run.samples(timing(t.name, kSampleMsSuffix)).size();
    return t;
  }
  return std::nullopt;
}

std::vector<PeakGroup> peakComparison(const Trace& trace) {
  std::vector<PeakGroup> out;
  for (const auto& run : trace.runs) {
    const auto peak = peakOf(run);
    if (!peak) continue;
    PeakGroup g;
    g.run = run.name;
    g.peak_allocated = *peak;
    g.peak_reserved = value(run, measure::kTorchPeakReservedBytes);
    g.time = runTiming(run);
    out.push_back(std::move(g));
  }
  if (out.empty()) return out;
  const PeakGroup& base = out.front();
  for (auto& g : out) {
    g.allocated_change = base.peak_allocated > 0 ? g.peak_allocated / base.peak_allocated - 1 : 0;
    if (g.time && base.time && base.time->median_ms > 0) g.time_change = g.time->median_ms / base.time->median_ms - 1;
  }
  return out;
}

std::vector<PrecisionRow> precisionResults(const Trace& trace) {
  std::vector<PrecisionRow> out;
  for (const auto& run : trace.runs) {
    const auto mode = run.configValue("mode");
    const auto time = runTiming(run);
    if (!mode || !time) continue;
    PrecisionRow row;
    row.mode = *mode;
    row.time = *time;
    row.tflops = value(run, measure::kAchievedTflops);
    row.peak_allocated = peakOf(run);
    row.settings = fmt::format("float32_matmul_precision={}, autocast={}, loss scaling {}",
                               run.configValue("float32_matmul_precision").value_or("?"),
                               run.configValue("autocast").value_or("?"),
                               run.configValue("loss_scaling").value_or("off") == "off" ? "off" : "dynamic");
    out.push_back(std::move(row));
  }
  auto medianOf = [&](std::string_view mode) -> std::optional<double> {
    for (const auto& r : out)
      if (r.mode == mode) return r.time.median_ms;
    return std::nullopt;
  };
  const auto fp32 = medianOf("fp32"), tf32 = medianOf("tf32");
  for (auto& r : out) {
    if (fp32 && r.time.median_ms > 0) r.speedup_vs_fp32 = *fp32 / r.time.median_ms;
    if (tf32 && r.time.median_ms > 0) r.speedup_vs_tf32 = *tf32 / r.time.median_ms;
  }
  return out;
}

std::vector<PlanRow> anatomyPlan(const Trace& trace, DeviceId device) {
  std::vector<PlanRow> out;
  const Run* run = nullptr;
  for (const auto& r : trace.runs)
    if (r.measurement(measure::kPlanTotalBytes)) run = &r;
  if (!run) return out;
  const auto plan = MemoryPlan::fromRun(*run);
  if (!plan) return out;
  const CategoryPeaks peaks = categoryPeaks(trace, device);
  auto measured = [&](Category c) { return static_cast<double>(peaks.peak[static_cast<size_t>(c)]); };
  out.push_back(PlanRow{"parameters", plan->parameter_bytes, measured(Category::Parameter)});
  out.push_back(PlanRow{"gradients", plan->gradient_bytes, measured(Category::Gradient)});
  out.push_back(PlanRow{"optimizer state", plan->optimizer_state_bytes, measured(Category::OptimizerState)});
  if (run->measurement(measure::kPlanActivationBytes))
    out.push_back(PlanRow{"activations", plan->activation_bytes, measured(Category::Activation)});
  if (run->measurement(measure::kPlanInputBytes)) out.push_back(PlanRow{"inputs", plan->input_bytes, measured(Category::Input)});
  out.push_back(PlanRow{"total (peak)", value(*run, measure::kPlanTotalBytes).value_or(plan->totalBytes()),
                        peakOf(*run).value_or(0)});
  return out;
}

std::vector<LadderRung> ladder(const std::vector<const Trace*>& traces) {
  std::vector<LadderRung> rungs;
  rungs.push_back({"slow (bandwidth/overhead)", "compile (usually free)",
                   "not measured here: LibTorch has no torch.compile, so Sawtooth has no compile workload", false, "", ""});

  LadderRung bf16{"slow (compute) or tight", "bf16 (~1.5–2×, half the bytes)",
                  "not measured yet: run the precision workload", false, "precision", "bf16"};
  if (const Trace* t = traceOf(traces, "precision")) {
    const auto rows = precisionResults(*t);
    const PrecisionRow *b = nullptr, *f = nullptr;
    for (const auto& r : rows) {
      if (r.mode == "bf16") b = &r;
      if (r.mode == "fp32") f = &r;
    }
    if (b && b->speedup_vs_tf32) {
      const std::string tf32 = speedupText(*b->speedup_vs_tf32);
      bf16.finding = fmt::format("bf16 is {} {} here ({:.2f} ms vs {:.2f} ms per step)", tf32,
                                 tf32 == "as fast" ? "as TF32" : "than TF32", b->time.median_ms,
                                 b->time.median_ms * *b->speedup_vs_tf32);
      if (b->speedup_vs_fp32) {
        const std::string fp32 = speedupText(*b->speedup_vs_fp32);
        bf16.finding += fmt::format(", {} {} fp32 with TF32 off", fp32, fp32 == "as fast" ? "as" : "than");
      }
      if (f && b->peak_allocated && f->peak_allocated && *f->peak_allocated > 0)
        bf16.finding += fmt::format("; peak {} vs {} ({})", formatBytes(static_cast<int64_t>(*b->peak_allocated)),
                                    formatBytes(static_cast<int64_t>(*f->peak_allocated)),
                                    percent(*b->peak_allocated / *f->peak_allocated - 1));
      bf16.measured = true;
    }
  }
  rungs.push_back(bf16);

  LadderRung ckpt{"doesn't fit", "checkpoint (large memory cut, modest time)",
                  "not measured yet: run the activation checkpointing workload", false, "checkpointing", ""};
  if (const Trace* t = traceOf(traces, "checkpointing")) {
    const auto groups = peakComparison(*t);
    if (groups.size() >= 2) {
      const PeakGroup& most = groups.back();
      ckpt.run = most.run;
      ckpt.finding = fmt::format("checkpointing ({}): {} peak ({} → {})", most.run, percent(most.allocated_change),
                                 formatBytes(static_cast<int64_t>(groups.front().peak_allocated)),
                                 formatBytes(static_cast<int64_t>(most.peak_allocated)));
      if (most.time_change) ckpt.finding += fmt::format(" for {} time", percent(*most.time_change));
      ckpt.measured = true;
    }
  }
  rungs.push_back(ckpt);

  LadderRung accum{"want a bigger batch", "accumulate (≈ same wall-clock)",
                   "not measured yet: run the gradient accumulation workload", false, "accumulation", ""};
  if (const Trace* t = traceOf(traces, "accumulation")) {
    std::string text;
    if (const Run* exact = runNamed(*t, "exact_check"))
      if (auto diff = value(*exact, measure::kMaxGradDiff)) text = fmt::format("same gradients (max difference {:.2g})", *diff);
    const auto groups = peakComparison(*t);
    if (groups.size() >= 2) {
      const PeakGroup& last = groups.back();
      accum.run = last.run;
      text += fmt::format("{}{}: peak {}", text.empty() ? "" : "; ", last.run, percent(last.allocated_change));
      if (last.time_change) text += fmt::format(", time per global batch {}", percent(*last.time_change));
    }
    if (!text.empty()) {
      accum.finding = text;
      accum.measured = true;
    }
  }
  rungs.push_back(accum);

  LadderRung devices{"still too slow / too big", "more devices",
                     "not measured yet: run the data-parallel workload (one process per rank)", false, "data-parallel", ""};
  if (const Trace* t = traceOf(traces, "data-parallel")) {
    double lo = 0, hi = 0;
    size_t ranks = 0;
    for (const auto& r : t->runs)
      if (auto p = peakOf(r)) {
        lo = ranks ? std::min(lo, *p) : *p;
        hi = ranks ? std::max(hi, *p) : *p;
        ++ranks;
      }
    if (ranks > 0) {
      devices.finding = fmt::format("{} rank(s): peak per rank {}–{} (imbalance {:.2f}×)", ranks,
                                    formatBytes(static_cast<int64_t>(lo)), formatBytes(static_cast<int64_t>(hi)),
                                    lo > 0 ? hi / lo : 0.0);
      devices.measured = true;
    }
  }
  rungs.push_back(devices);
  return rungs;
}

}  // namespace sawtooth
