#include "workloads/experiments/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>

#include "workloads/capture/capture_session.h"

namespace sawtooth::workloads {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct RngState {
  torch::Tensor cpu, cuda;
  int device = -1;

  static RngState capture(const torch::Tensor& like) {
    RngState s;
    {
      auto gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      s.cpu = gen.get_state();
    }
    if (like.is_cuda()) {
      s.device = like.get_device();
      auto gen = at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(s.device));
      std::lock_guard<std::mutex> lock(gen.mutex());
      s.cuda = gen.get_state();
    }
    return s;
  }

  void restore() const {
    {
      auto gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(cpu);
    }
    if (device >= 0) {
      auto gen = at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(device));
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(cuda);
    }
  }
};

class CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, int64_t block, int64_t session) {
    const RngState rng = RngState::capture(input);
    const c10::DeviceType type = input.is_cuda() ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
    ctx->saved_data["block"] = block;
    ctx->saved_data["session"] = session;
    ctx->saved_data["rng_cpu"] = rng.cpu;
    ctx->saved_data["rng_cuda"] = rng.cuda.defined() ? rng.cuda : torch::Tensor();
    ctx->saved_data["rng_device"] = static_cast<int64_t>(rng.device);
    ctx->saved_data["autocast"] = at::autocast::is_autocast_enabled(type);
    ctx->saved_data["autocast_dtype"] = static_cast<int64_t>(at::autocast::get_autocast_dtype(type));
    ctx->save_for_backward({input});
    return (*reinterpret_cast<const BlockFn*>(block))(input);  // grad mode is off here
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const torch::Tensor input = ctx->get_saved_variables()[0];
    const auto& block = *reinterpret_cast<const BlockFn*>(ctx->saved_data["block"].toInt());
    auto* session = reinterpret_cast<capture::CaptureSession*>(ctx->saved_data["session"].toInt());
    const c10::DeviceType type = input.is_cuda() ? c10::DeviceType::CUDA : c10::DeviceType::CPU;

    RngState saved;
    saved.cpu = ctx->saved_data["rng_cpu"].toTensor();
    saved.cuda = ctx->saved_data["rng_cuda"].toTensor();
    saved.device = static_cast<int>(ctx->saved_data["rng_device"].toInt());
    const RngState current = RngState::capture(input);

    torch::Tensor x = input.detach().requires_grad_(input.requires_grad());
    torch::Tensor out;
    {
      if (session) session->beginPhase("recompute");
      saved.restore();
      const bool was_autocast = at::autocast::is_autocast_enabled(type);
      const auto was_dtype = at::autocast::get_autocast_dtype(type);
      at::autocast::set_autocast_enabled(type, ctx->saved_data["autocast"].toBool());
      at::autocast::set_autocast_dtype(type, static_cast<at::ScalarType>(ctx->saved_data["autocast_dtype"].toInt()));
      {
        at::AutoGradMode grad(true);
        out = block(x);
      }
      at::autocast::set_autocast_enabled(type, was_autocast);
      at::autocast::set_autocast_dtype(type, was_dtype);
      current.restore();
      if (session) session->endPhase();
    }
    torch::autograd::backward({out}, {grad_outputs[0]});
    return {x.grad(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor checkpoint(const BlockFn& block, const torch::Tensor& input, capture::CaptureSession* session) {
  return CheckpointFunction::apply(input, reinterpret_cast<int64_t>(&block), reinterpret_cast<int64_t>(session));
}

}  // namespace sawtooth::workloads
