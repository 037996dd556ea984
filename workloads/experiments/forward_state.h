#pragma once
// What a checkpointed block's recomputation must see exactly as its forward saw it: the CPU
// generator's state, the CUDA generator's state of the input's device, and autocast on the
// input's device type (torch.utils.checkpoint's preserve_rng_state and autocast handling).

#include <torch/torch.h>

namespace sawtooth::workloads {

struct ForwardState {
  torch::Tensor cpu_rng, cuda_rng;
  int cuda_device = -1;  // -1: the input is not on a CUDA device
  c10::DeviceType device_type = c10::DeviceType::CPU;
  bool autocast = false;
  at::ScalarType autocast_dtype = at::kFloat;

  static ForwardState capture(const torch::Tensor& input);
  void saveTo(torch::autograd::AutogradContext& ctx) const;
  static ForwardState loadFrom(torch::autograd::AutogradContext& ctx);
};

// Puts the saved state in force for a recomputation and the current one back afterwards, also
// when the recomputation throws.
class ReplayScope {
 public:
  ReplayScope(const ForwardState& saved, const torch::Tensor& input);
  ~ReplayScope();
  ReplayScope(const ReplayScope&) = delete;
  ReplayScope& operator=(const ReplayScope&) = delete;

 private:
  ForwardState current_;
};

}  // namespace sawtooth::workloads
