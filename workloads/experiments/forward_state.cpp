#include "workloads/experiments/forward_state.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>

namespace sawtooth::workloads {
namespace {

torch::Tensor generatorState(at::Generator gen) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void setGeneratorState(at::Generator gen, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

at::Generator cudaGenerator(int device) {
  return at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(device));
}

void apply(const ForwardState& s) {
  setGeneratorState(at::detail::getDefaultCPUGenerator(), s.cpu_rng);
  if (s.cuda_device >= 0) setGeneratorState(cudaGenerator(s.cuda_device), s.cuda_rng);
  at::autocast::set_autocast_enabled(s.device_type, s.autocast);
  at::autocast::set_autocast_dtype(s.device_type, s.autocast_dtype);
}

}  // namespace

ForwardState ForwardState::capture(const torch::Tensor& input) {
  ForwardState s;
  s.cpu_rng = generatorState(at::detail::getDefaultCPUGenerator());
  if (input.is_cuda()) {
    s.cuda_device = input.get_device();
    s.cuda_rng = generatorState(cudaGenerator(s.cuda_device));
    s.device_type = c10::DeviceType::CUDA;
  }
  s.autocast = at::autocast::is_autocast_enabled(s.device_type);
  s.autocast_dtype = at::autocast::get_autocast_dtype(s.device_type);
  return s;
}

void ForwardState::saveTo(torch::autograd::AutogradContext& ctx) const {
  ctx.saved_data["rng_cpu"] = cpu_rng;
  ctx.saved_data["rng_cuda"] = cuda_rng.defined() ? cuda_rng : torch::Tensor();
  ctx.saved_data["rng_device"] = static_cast<int64_t>(cuda_device);
  ctx.saved_data["autocast"] = autocast;
  ctx.saved_data["autocast_dtype"] = static_cast<int64_t>(autocast_dtype);
}

ForwardState ForwardState::loadFrom(torch::autograd::AutogradContext& ctx) {
  ForwardState s;
  s.cpu_rng = ctx.saved_data["rng_cpu"].toTensor();
  s.cuda_rng = ctx.saved_data["rng_cuda"].toTensor();
  s.cuda_device = static_cast<int>(ctx.saved_data["rng_device"].toInt());
  s.device_type = s.cuda_device >= 0 ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
  s.autocast = ctx.saved_data["autocast"].toBool();
  s.autocast_dtype = static_cast<at::ScalarType>(ctx.saved_data["autocast_dtype"].toInt());
  return s;
}

ReplayScope::ReplayScope(const ForwardState& saved, const torch::Tensor& input) : current_(ForwardState::capture(input)) {
  apply(saved);
}

ReplayScope::~ReplayScope() { apply(current_); }

}  // namespace sawtooth::workloads
