#include "core/analysis/experiment_results.h"

#include <algorithm>
#include <cmath>

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

std::pair<double, double> Timing::typicalRange() const {
  if (sample_ms.size() >= 5) {
    std::vector<double> sorted = sample_ms;
    std::sort(sorted.begin(), sorted.end());
    // Quartiles by linear interpolation between the closest ranks.
    auto quantile = [&](double q) {
      const double at = q * static_cast<double>(sorted.size() - 1);
      const size_t lo = static_cast<size_t>(std::floor(at));
      const size_t hi = std::min(lo + 1, sorted.size() - 1);
      return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
    };
    return {quantile(0.25), quantile(0.75)};
  }
  return {min_ms, max_ms};
}

double Timing::spread() const {
  const auto [lo, hi] = typicalRange();
  return median_ms > 0 ? (hi - lo) / 2 / median_ms : 0;
}

TimingChange compareTimings(const Timing& reference, const Timing& t) {
  TimingChange c;
  if (reference.median_ms > 0 && t.median_ms > 0) {
    c.speedup = reference.median_ms / t.median_ms;
    c.change = t.median_ms / reference.median_ms - 1;
  }
  c.noise = std::max(reference.spread(), t.spread());
  constexpr size_t kFewestSamples = 3;
  constexpr double kSmallestChange = 0.02;
  if (reference.samples < kFewestSamples || t.samples < kFewestSamples || !(reference.median_ms > 0) || !(t.median_ms > 0)) {
    c.verdict = TimingChange::Verdict::NotJudged;
    return c;
  }
  const auto [rlo, rhi] = reference.typicalRange();
  const auto [tlo, thi] = t.typicalRange();
  const bool overlap = tlo <= rhi && rlo <= thi;
  if (overlap || std::fabs(c.change) < kSmallestChange) c.verdict = TimingChange::Verdict::WithinNoise;
  else c.verdict = c.speedup > 1 ? TimingChange::Verdict::Faster : TimingChange::Verdict::Slower;
  return c;
}

namespace {

std::string plusMinus(double spread) { return fmt::format("±{:.0f} %", spread * 100); }

std::string notJudged(const TimingChange&) { return "not judged (fewer than 3 timed samples)"; }

}  // namespace

std::string speedupVerdictText(const TimingChange& c) {
  switch (c.verdict) {
    case TimingChange::Verdict::WithinNoise: return fmt::format("within noise ({})", plusMinus(c.noise));
    case TimingChange::Verdict::NotJudged: return notJudged(c);
    default: return speedupText(c.speedup);
  }
}

std::string timeChangeText(const TimingChange& c) {
  switch (c.verdict) {
    case TimingChange::Verdict::WithinNoise: return fmt::format("time within noise ({})", plusMinus(c.noise));
    case TimingChange::Verdict::NotJudged: return "time " + notJudged(c);
    default: return signedPercentText(c.change) + " time";
  }
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
    t.sample_ms = run.samples(timing(t.name, kSampleMsSuffix));
    t.samples = t.sample_ms.size();
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
    if (g.time && base.time && base.time->median_ms > 0) {
      g.time_change = g.time->median_ms / base.time->median_ms - 1;
      g.time_vs_baseline = compareTimings(*base.time, *g.time);
    }
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
  auto timingOf = [&](std::string_view mode) -> std::optional<Timing> {
    for (const auto& r : out)
      if (r.mode == mode) return r.time;
    return std::nullopt;
  };
  const auto fp32 = timingOf("fp32"), tf32 = timingOf("tf32");
  // TF32 is a format of NVIDIA's tensor cores (Ampere and later): a CPU runs fp32 either way.
  const bool cpu = trace.meta.count("device_kind") && trace.meta.at("device_kind") == "cpu";
  for (auto& r : out) {
    if (fp32 && r.time.median_ms > 0) {
      r.speedup_vs_fp32 = fp32->median_ms / r.time.median_ms;
      r.vs_fp32 = compareTimings(*fp32, r.time);
    }
    if (tf32 && r.time.median_ms > 0) {
      r.speedup_vs_tf32 = tf32->median_ms / r.time.median_ms;
      r.vs_tf32 = compareTimings(*tf32, r.time);
    }
    if (cpu && r.mode == "tf32")
      r.caveat = "TF32 is an NVIDIA GPU format: on a CPU this mode runs the fp32 arithmetic, so its difference to "
                 "fp32 is noise";
  }
  if (cpu)  // against TF32 is against fp32 again
    for (auto& r : out) r.vs_tf32.reset();
  return out;
}

std::vector<PlanRow> anatomyPlan(const Trace& trace, DeviceId device) {
  return anatomyPlan(trace, categoryPeaks(trace, device));
}

std::vector<PlanRow> anatomyPlan(const Trace& trace, const CategoryPeaks& peaks) {
  std::vector<PlanRow> out;
  const Run* run = nullptr;
  for (const auto& r : trace.runs)
    if (r.measurement(measure::kPlanTotalBytes)) run = &r;
  if (!run) return out;
  const auto plan = MemoryPlan::fromRun(*run);
  if (!plan) return out;
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
    // Against TF32 on a GPU; on a CPU (no TF32) against fp32.
    const std::optional<TimingChange>& reference = b && b->vs_tf32 ? b->vs_tf32 : b ? b->vs_fp32 : std::nullopt;
    if (b && reference) {
      const std::string against = b->vs_tf32 ? "TF32" : "fp32";
      const std::string verdict = speedupVerdictText(*reference);
      auto phrase = [](const TimingChange& c, const std::string& what, const std::string& text) {
        if (!c.meaningful()) return fmt::format("{} against {}", text, what);
        return text == "as fast" ? fmt::format("as fast as {}", what) : fmt::format("{} than {}", text, what);
      };
      bf16.finding = fmt::format("bf16 is {} here ({:.2f} ms vs {:.2f} ms per step)", phrase(*reference, against, verdict),
                                 b->time.median_ms, b->time.median_ms * reference->speedup);
      if (b->vs_tf32 && b->vs_fp32)
        bf16.finding += fmt::format(", {}", phrase(*b->vs_fp32, "fp32 with TF32 off", speedupVerdictText(*b->vs_fp32)));
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
      if (most.time_vs_baseline) ckpt.finding += fmt::format(", {}", timeChangeText(*most.time_vs_baseline));
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
      if (last.time_vs_baseline) text += fmt::format(", per global batch: {}", timeChangeText(*last.time_vs_baseline));
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
