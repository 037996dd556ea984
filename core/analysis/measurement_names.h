#pragma once
// The names of the measurements a recording's runs carry, defined once: the workloads write them,
// core/analysis reads them, and the views only show what core/analysis made of them.

#include <string>
#include <string_view>

namespace sawtooth::measure {

// Peaks of a run: Sawtooth's own count, and PyTorch's allocator statistics (CUDA).
inline constexpr char kPeakAllocatedBytes[] = "peak_allocated_bytes";
inline constexpr char kTorchPeakAllocatedBytes[] = "torch_peak_allocated_bytes";
inline constexpr char kTorchPeakReservedBytes[] = "torch_peak_reserved_bytes";

// Timings: WHAT_median_ms, WHAT_min_ms, WHAT_max_ms, and one WHAT_sample_ms per timed step.
inline constexpr char kStepTime[] = "step_time";
inline constexpr char kFwdBwd[] = "fwd_bwd";
inline constexpr char kGlobalBatchTime[] = "global_batch_time";
inline constexpr std::string_view kMedianMsSuffix = "_median_ms";
inline constexpr std::string_view kMinMsSuffix = "_min_ms";
inline constexpr std::string_view kMaxMsSuffix = "_max_ms";
inline constexpr std::string_view kSampleMsSuffix = "_sample_ms";
inline std::string timing(std::string_view what, std::string_view suffix) { return std::string(what) + std::string(suffix); }
inline bool isSample(std::string_view name) { return name.size() > kSampleMsSuffix.size() && name.ends_with(kSampleMsSuffix); }

// The analytic plan (core/analysis/memory_plan.h).
inline constexpr char kParameters[] = "parameters";
inline constexpr char kOptimizerParameters[] = "optimizer_parameters";
inline constexpr char kPlanParameterBytes[] = "plan_parameter_bytes";
inline constexpr char kPlanGradientBytes[] = "plan_gradient_bytes";
inline constexpr char kPlanOptimizerStateBytes[] = "plan_optimizer_state_bytes";
inline constexpr char kPlanModelStateBytes[] = "plan_model_state_bytes";
inline constexpr char kPlanActivationBytes[] = "plan_activation_bytes";
inline constexpr char kPlanInputBytes[] = "plan_input_bytes";
inline constexpr char kPlanTotalBytes[] = "plan_total_bytes";
inline constexpr char kPlanError[] = "plan_error";

// Precision.
inline constexpr char kStepFlops[] = "step_flops";
inline constexpr char kAchievedTflops[] = "achieved_tflops";
inline constexpr char kFinalLoss[] = "final_loss";
inline constexpr char kFinalLossScale[] = "final_loss_scale";
inline constexpr char kSkippedSteps[] = "skipped_steps";

// Gradient accumulation, checkpointing, data parallel: the checks that the variants agree.
inline constexpr char kMaxGradDiff[] = "max_grad_diff";
inline constexpr char kGradMaxAbsDiffVsStoreAll[] = "grad_max_abs_diff_vs_store_all";
inline constexpr char kParamChecksum[] = "param_checksum";
inline constexpr char kParamMaxAbsDiffVsRank0[] = "param_max_abs_diff_vs_rank0";
inline constexpr char kAllreduceBytesPerStep[] = "allreduce_bytes_per_step";

// Units.
inline constexpr char kBytes[] = "bytes";
inline constexpr char kMs[] = "ms";
inline constexpr char kCount[] = "count";
inline constexpr char kRatio[] = "ratio";
inline constexpr char kFlop[] = "FLOP";
inline constexpr char kTflopPerS[] = "TFLOP/s";
inline constexpr char kSteps[] = "steps";

}  // namespace sawtooth::measure
