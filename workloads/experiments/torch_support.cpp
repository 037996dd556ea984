#include "workloads/experiments/torch_support.h"

#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/analysis/measurement_names.h"
#include "core/util/format_bytes.h"

namespace sawtooth::workloads {

torch::Device deviceOf(const WorkloadContext& ctx) {
  return ctx.cuda ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(ctx.device)) : torch::Device(torch::kCPU);
}

int16_t deviceIndex(const torch::Tensor& t) { return t.is_cuda() ? static_cast<int16_t>(t.get_device()) : int16_t{-1}; }

void tag(capture::CaptureSession& session, const torch::Tensor& t, Category category) {
  if (t.defined() && t.data_ptr()) session.tag(t.data_ptr(), deviceIndex(t), category);
}

void tagAll(capture::CaptureSession& session, const std::vector<torch::Tensor>& tensors, Category category) {
  for (const auto& t : tensors) tag(session, t, category);
}

void tagGradients(capture::CaptureSession& session, const std::vector<torch::Tensor>& params) {
  for (const auto& p : params) tag(session, p.grad(), Category::Gradient);
}

void synchronize(const WorkloadContext& ctx) {
  if (ctx.cuda) torch::cuda::synchronize(ctx.device);
}

Stats statsOf(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

std::vector<Measurement> timeMeasurements(const std::string& name, const std::vector<double>& samples_ms) {
  std::vector<Measurement> out;
  for (double v : samples_ms) out.push_back({measure::timing(name, measure::kSampleMsSuffix), v, measure::kMs});
  const Stats s = statsOf(samples_ms);
  out.push_back({measure::timing(name, measure::kMedianMsSuffix), s.median, measure::kMs});
  out.push_back({measure::timing(name, measure::kMinMsSuffix), s.min, measure::kMs});
  out.push_back({measure::timing(name, measure::kMaxMsSuffix), s.max, measure::kMs});
  return out;
}

StepTimer::StepTimer(const WorkloadContext& ctx) : cuda_(ctx.cuda) {}

StepTimer::~StepTimer() {
  for (void* e : events_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
}

void StepTimer::begin() {
  if (!cuda_) {
    cpu_start_ = capture::clockNs();
    return;
  }
  cudaEvent_t e;
  cudaEventCreate(&e);
  cudaEventRecord(e, at::cuda::getCurrentCUDAStream());
  events_.push_back(e);
}

void StepTimer::end() {
  if (!cuda_) {
    cpu_ms_.push_back(static_cast<double>(capture::clockNs() - cpu_start_) / 1e6);
    return;
  }
  cudaEvent_t e;
  cudaEventCreate(&e);
  cudaEventRecord(e, at::cuda::getCurrentCUDAStream());
  events_.push_back(e);
}

std::vector<double> StepTimer::samplesMs() {
  if (!cuda_) return cpu_ms_;
  std::vector<double> out;
  if (!events_.empty()) cudaEventSynchronize(static_cast<cudaEvent_t>(events_.back()));
  for (size_t i = 0; i + 1 < events_.size(); i += 2) {
    float ms = 0;
    cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(events_[i]), static_cast<cudaEvent_t>(events_[i + 1]));
    out.push_back(ms);
  }
  return out;
}

PeakWindow::PeakWindow(const WorkloadContext& ctx) : ctx_(ctx) {
  if (ctx.cuda) {
    synchronize(ctx);
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(ctx.device));
  }
  ctx.session.resetPeaks();
}

int64_t PeakWindow::peakAllocated() const {
  return ctx_.session.peakAllocated(ctx_.cuda ? static_cast<int16_t>(ctx_.device) : int16_t{-1});
}

std::vector<Measurement> PeakWindow::measurements(const std::string& prefix) const {
  std::vector<Measurement> out;
  const bool tracked = !ctx_.cuda || ctx_.session.options().allocator_tracker;
  if (tracked) out.push_back({prefix + measure::kPeakAllocatedBytes, static_cast<double>(peakAllocated()), measure::kBytes});
  if (ctx_.cuda) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(ctx_.device));
    out.push_back({prefix + measure::kTorchPeakAllocatedBytes, static_cast<double>(stats.allocated_bytes[0].peak), measure::kBytes});
    out.push_back({prefix + measure::kTorchPeakReservedBytes, static_cast<double>(stats.reserved_bytes[0].peak), measure::kBytes});
  }
  return out;
}

AutocastScope::AutocastScope(const WorkloadContext& ctx, bool enabled, torch::ScalarType dtype)
    : device_(ctx.cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU),
      previous_enabled_(at::autocast::is_autocast_enabled(device_)),
      previous_dtype_(at::autocast::get_autocast_dtype(device_)),
      active_(enabled) {
  if (!active_) return;
  at::autocast::set_autocast_dtype(device_, dtype);
  at::autocast::set_autocast_enabled(device_, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_, previous_enabled_);
  at::autocast::set_autocast_dtype(device_, previous_dtype_);
}

ForeachOptimizer::ForeachOptimizer(std::vector<torch::Tensor> params, Kind kind, double lr, double momentum,
                                   double weight_decay)
    : params_(std::move(params)), kind_(kind), lr_(lr), momentum_(momentum), weight_decay_(weight_decay) {}

ForeachOptimizer::Kind ForeachOptimizer::parse(const std::string& name) {
  if (name == "sgd") return Kind::Sgd;
  if (name == "adamw") return Kind::AdamW;
  return Kind::Adam;
}

double ForeachOptimizer::stateFactor() const {
  if (kind_ == Kind::Sgd) return momentum_ != 0 ? 1.0 : 0.0;
  return 2.0;
}

void ForeachOptimizer::zeroGrad() {
  for (auto& p : params_) p.mutable_grad() = torch::Tensor();
}

std::vector<torch::Tensor> ForeachOptimizer::state() const {
  std::vector<torch::Tensor> out;
  for (const auto* list : {&exp_avg_, &exp_avg_sq_, &momentum_buffers_})
    out.insert(out.end(), list->begin(), list->end());
  return out;
}

std::vector<std::pair<torch::Tensor, torch::Tensor>> ForeachOptimizer::stateByParameter() const {
  std::vector<std::pair<torch::Tensor, torch::Tensor>> out;
  for (const auto* list : {&exp_avg_, &exp_avg_sq_, &momentum_buffers_})
    for (size_t i = 0; i < list->size() && i < state_params_.size(); ++i)
      out.emplace_back((*list)[i], state_params_[i]);
  return out;
}

void ForeachOptimizer::step() {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> params, grads;
  for (auto& p : params_)
    if (p.grad().defined()) params.push_back(p), grads.push_back(p.grad());
  if (params.empty()) return;
  ++steps_;

  if (kind_ == Kind::Sgd) {
    // torch/optim/sgd.py, _multi_tensor_sgd.
    if (weight_decay_ != 0) grads = at::_foreach_add(grads, params, weight_decay_);
    if (momentum_ != 0) {
      if (momentum_buffers_.empty()) {
        for (auto& g : grads) momentum_buffers_.push_back(g.clone().detach());
        state_params_ = params;
      } else {
        at::_foreach_mul_(momentum_buffers_, momentum_);
        at::_foreach_add_(momentum_buffers_, grads, 1.0);
      }
      grads = momentum_buffers_;
    }
    at::_foreach_add_(params, grads, -lr_);
    return;
  }

  // torch/optim/adam.py, _multi_tensor_adam (capturable=False, amsgrad=False, maximize=False).
  if (exp_avg_.empty()) {
    for (auto& p : params) {
      exp_avg_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      exp_avg_sq_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    }
    state_params_ = params;
  }
  if (weight_decay_ != 0) {
    if (kind_ == Kind::AdamW) at::_foreach_mul_(params, 1 - lr_ * weight_decay_);
    else grads = at::_foreach_add(grads, params, weight_decay_);
  }
  at::_foreach_lerp_(exp_avg_, grads, 1 - beta1_);
  at::_foreach_mul_(exp_avg_sq_, beta2_);
  at::_foreach_addcmul_(exp_avg_sq_, grads, grads, 1 - beta2_);
  grads.clear();
  const double bias_correction1 = 1 - std::pow(beta1_, static_cast<double>(steps_));
  const double bias_correction2 = 1 - std::pow(beta2_, static_cast<double>(steps_));
  const double step_size = -(lr_ / bias_correction1);
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  std::vector<at::Scalar> step_sizes(params.size(), step_size), bc2(params.size(), bias_correction2_sqrt);
  auto exp_avg_sq_sqrt = at::_foreach_sqrt(exp_avg_sq_);
  at::_foreach_div_(exp_avg_sq_sqrt, bc2);
  at::_foreach_add_(exp_avg_sq_sqrt, eps_);
  at::_foreach_addcdiv_(params, exp_avg_, exp_avg_sq_sqrt, step_sizes);
}

LossScaler::LossScaler(const torch::Device& device, double init_scale, double growth, double backoff, int64_t interval)
    : scale_(torch::full({1}, init_scale, torch::TensorOptions().dtype(torch::kFloat32).device(device))),
      growth_tracker_(torch::zeros({1}, torch::TensorOptions().dtype(torch::kInt32).device(device))),
      growth_(growth),
      backoff_(backoff),
      interval_(interval) {}

torch::Tensor LossScaler::scale(const torch::Tensor& loss) const { return loss * scale_.to(loss.dtype()); }

bool LossScaler::step(ForeachOptimizer& optimizer, const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (const auto& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  auto found_inf = torch::zeros({1}, scale_.options());
  auto inv_scale = scale_.to(torch::kFloat64).reciprocal().to(torch::kFloat32);
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale);
  // GradScaler.step reads found_inf on the host too: the one synchronisation of a scaled step.
  const bool overflow = found_inf.item<float>() != 0.0f;
  if (!overflow) optimizer.step();
  else ++skipped_;
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf, growth_, backoff_, interval_);
  return !overflow;
}

double LossScaler::currentScale() const { return scale_.item<double>(); }

std::string fmtBytes(int64_t bytes) { return formatBytes(bytes); }

}  // namespace sawtooth::workloads
