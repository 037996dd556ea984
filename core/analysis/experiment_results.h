#pragma once
// The numbers behind the app's comparison charts and the ladder, read from a recording's runs
// (their configuration and measurements). Only measured numbers: a chart or a rung built from
// these never shows a constant.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/category_series.h"
#include "core/model/trace.h"

namespace sawtooth {

// The measurement "<what>_median_ms" of a run (step time, fwd+bwd time, time per global batch).
struct Timing {
  std::string name;  // e.g. "step_time"
  double median_ms = 0, min_ms = 0, max_ms = 0;
  size_t samples = 0;
  std::vector<double> sample_ms;  // each timed step, as recorded (empty in older recordings)
  // Where most samples lie: the interquartile range with 5 samples or more, else min to max.
  std::pair<double, double> typicalRange() const;
  // Half that range relative to the median: the ± a reader should allow for (0 with one sample).
  double spread() const;
};
std::optional<Timing> runTiming(const Run& run);

// One timing against a reference, and whether the difference means anything: it is "within
// noise" when their typical ranges overlap or the medians differ by less than 2 %, and "not
// judged" when either has fewer than 3 samples (no spread to judge by). Noise is never worded
// as a speed-up.
struct TimingChange {
  enum class Verdict { Faster, Slower, WithinNoise, NotJudged };
  Verdict verdict = Verdict::NotJudged;
  double speedup = 1;       // reference median / this median
  double change = 0;        // this median / reference median − 1
  double noise = 0;         // the larger spread of the two
  bool meaningful() const { return verdict == Verdict::Faster || verdict == Verdict::Slower; }
};
TimingChange compareTimings(const Timing& reference, const Timing& t);
// "1.7× faster", "within noise (±12 %)", "not judged (2 samples)".
std::string speedupVerdictText(const TimingChange& c);
// "+34 % time", "time within noise (±40 %)", "time not judged (1 sample)".
std::string timeChangeText(const TimingChange& c);

// Peak comparison: one group of bars per run, changes relative to the first run (the baseline:
// store-all, k = 1, fp32).
struct PeakGroup {
  std::string run;
  double peak_allocated = 0;
  std::optional<double> peak_reserved;
  std::optional<Timing> time;
  double allocated_change = 0;        // (peak / baseline peak) − 1
  std::optional<double> time_change;  // (median / baseline median) − 1
  std::optional<TimingChange> time_vs_baseline;  // the same, judged against the spread
};
std::vector<PeakGroup> peakComparison(const Trace& trace);

// Precision modes: median step time with its spread, speed-ups, TFLOP/s, peak, settings.
struct PrecisionRow {
  std::string mode;
  Timing time;
  std::optional<double> tflops;
  std::optional<double> peak_allocated;
  std::optional<double> speedup_vs_fp32;  // fp32 median / this median
  std::optional<double> speedup_vs_tf32;
  std::optional<TimingChange> vs_fp32, vs_tf32;  // the same, judged against the spread
  std::string settings;  // "float32_matmul_precision=high, autocast=BFloat16, loss scaling off"
  // Why a comparison means nothing on the device that ran it ("TF32 is an NVIDIA GPU format: on a
  // CPU this mode runs the fp32 arithmetic"); empty when it does.
  std::string caveat;
};
std::vector<PrecisionRow> precisionResults(const Trace& trace);

// Anatomy: the analytic plan next to what was counted, per category.
struct PlanRow {
  std::string what;  // "parameters", "gradients", "optimizer state", "activations", "inputs", "total (peak)"
  double plan_bytes = 0;
  double measured_bytes = 0;
  double error() const { return plan_bytes > 0 ? measured_bytes / plan_bytes - 1 : 0; }
};
std::vector<PlanRow> anatomyPlan(const Trace& trace, DeviceId device);
// The same from the device's category peaks counted elsewhere (trace = the runs).
std::vector<PlanRow> anatomyPlan(const Trace& trace, const CategoryPeaks& peaks);

// One rung of the seed's ladder with this machine's numbers, or a note that it is not measured.
struct LadderRung {
  std::string symptom;  // "slow (compute) or tight"
  std::string remedy;   // "bf16"
  std::string finding;  // "1.7× faster than TF32 here (2.41 ms vs 4.10 ms per step), peak −8 %"
  bool measured = false;
  std::string workload;  // where the numbers came from
  std::string run;
};
// `traces`: every recording the user has open (any subset of the workloads).
std::vector<LadderRung> ladder(const std::vector<const Trace*>& traces);

std::string workloadOf(const Trace& trace);

}  // namespace sawtooth
