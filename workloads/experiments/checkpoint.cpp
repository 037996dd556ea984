#include "workloads/experiments/checkpoint.h"

#include <optional>

#include "capture/torch/capture_session.h"
#include "workloads/experiments/forward_state.h"

namespace sawtooth::workloads {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, int64_t block, int64_t session) {
    ForwardState::capture(input).saveTo(*ctx);
    ctx->saved_data["block"] = block;
    ctx->saved_data["session"] = session;
    ctx->save_for_backward({input});
    return (*reinterpret_cast<const BlockFn*>(block))(input);  // grad mode is off here
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const torch::Tensor input = ctx->get_saved_variables()[0];
    const auto& block = *reinterpret_cast<const BlockFn*>(ctx->saved_data["block"].toInt());
    auto* session = reinterpret_cast<capture::CaptureSession*>(ctx->saved_data["session"].toInt());
    const ForwardState saved = ForwardState::loadFrom(*ctx);

    torch::Tensor x = input.detach().requires_grad_(input.requires_grad());
    torch::Tensor out;
    {
      std::optional<capture::PhaseScope> phase;
      if (session) phase.emplace(*session, "recompute");
      ReplayScope replay(saved, input);
      at::AutoGradMode grad(true);
      out = block(x);
    }
    torch::autograd::backward({out}, {grad_outputs[0]});
    return {x.grad(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor checkpointReentrant(const BlockFn& block, const torch::Tensor& input, capture::CaptureSession* session) {
  return CheckpointFunction::apply(input, reinterpret_cast<int64_t>(&block), reinterpret_cast<int64_t>(session));
}

}  // namespace sawtooth::workloads
