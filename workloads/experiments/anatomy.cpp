// The memory anatomy of a training step (seed: "Params 4P + grads 4P + Adam states 8P = 16P bytes
// before activations"): an MLP of Linear(width, width, no bias) + ReLU layers trained on a fixed
// batch, every step split into zero_grad / forward / backward / optimizer phases, parameters,
// inputs, gradients and optimizer state tagged, and the analytic plan stored beside the count.

#include "workloads/experiments/anatomy.h"

#include <fmt/format.h>

#include <optional>

#include "core/analysis/measurement_names.h"
#include "core/analysis/memory_plan.h"
#include "workloads/experiments/recorded_modules.h"
#include "workloads/experiments/torch_support.h"

namespace sawtooth::workloads {
namespace {

void runAnatomy(WorkloadContext& ctx) {
  const auto& p = ctx.params;
  const int64_t layers = p.integer("layers"), width = p.integer("width"), batch = p.integer("batch");
  const int64_t steps = p.integer("steps"), timed = p.integer("timed_steps");
  const std::string optimizer_name = p.text("optimizer");
  auto& session = ctx.session;
  const torch::Device dev = deviceOf(ctx);
  torch::manual_seed(0);

  session.beginRun(optimizer_name, "anatomy", p.list());
  PeakWindow peak(ctx);
  torch::nn::Sequential net;
  torch::Tensor X;
  std::vector<torch::Tensor> params;
  std::unique_ptr<ForeachOptimizer> opt;
  std::optional<RecordedModules> modules;
  {
    PhaseScope phase(session, "setup");
    for (int64_t i = 0; i < layers; ++i) {
      net->push_back(torch::nn::Linear(torch::nn::LinearOptions(width, width).bias(false)));
      net->push_back(torch::nn::ReLU());
    }
    net->to(dev);
    params = net->parameters();
    modules.emplace(session, *net);
    modules->tagParameters();
    X = torch::randn({batch, width}, torch::TensorOptions().device(dev));
    tag(session, X, Category::Input);
    opt = std::make_unique<ForeachOptimizer>(params, ForeachOptimizer::parse(optimizer_name), p.real("lr"));
  }

  auto step = [&] {
    session.beginStep();
    {
      PhaseScope phase(session, "zero_grad");
      opt->zeroGrad();
    }
    torch::Tensor loss;
    {
      PhaseScope phase(session, "forward");
      loss = modules->forwardSequential(net, X).sum();
    }
    {
      PhaseScope phase(session, "backward");
      loss.backward();
      loss = torch::Tensor();
    }
    modules->tagGradients();
    {
      PhaseScope phase(session, "optimizer");
      opt->step();
    }
    modules->tagOptimizerState(*opt);
  };

  const int64_t total = steps + timed;
  for (int64_t s = 0; s < steps; ++s) {
    ctx.checkStop();
    step();
    ctx.progress.report("run", optimizer_name, s + 1, total, static_cast<double>(s + 1) / static_cast<double>(total),
                        fmt::format("step {} of {}", s + 1, steps));
  }
  synchronize(ctx);
  std::vector<Measurement> m = peak.measurements();

  // Further steps, timed (the memory pattern repeats; the first steps are the anatomy).
  StepTimer timer(ctx);
  for (int64_t s = 0; s < timed; ++s) {
    ctx.checkStop();
    timer.time(step);
    if ((s + 1) % 10 == 0 || s + 1 == timed)
      ctx.progress.report("run", optimizer_name, steps + s + 1, total,
                          static_cast<double>(steps + s + 1) / static_cast<double>(total), "timing steps");
  }
  const auto times = timer.samplesMs();
  for (auto& t : timeMeasurements(measure::kStepTime, times)) m.push_back(t);

  // The plan (core/analysis/memory_plan.h): 4P parameters, 4P gradients, the optimizer's state,
  // and the activations kept for backward (each layer's ReLU output, batch × width floats).
  int64_t P = 0;
  for (const auto& t : params) P += t.numel();
  PlanInputs plan;
  plan.parameters = P;
  plan.optimizer_parameters = P;
  plan.state_per_parameter = opt->stateFactor();
  plan.activation_elements = layers * batch * width;
  plan.input_elements = batch * width;
  for (auto& x : planMemory(plan).measurements(static_cast<double>(peak.peakAllocated()))) m.push_back(std::move(x));
  session.endRun(std::move(m));
}

}  // namespace

Workload anatomyWorkload() {
  WorkloadSpec spec;
  spec.name = "anatomy";
  spec.title = "Memory anatomy of a step";
  spec.description =
      "An MLP of Linear(width, width, no bias) + ReLU layers trained with Adam: the sawtooth of a step, "
      "parameters 4P + gradients 4P + Adam state 8P = 16P plus activations, the peak early in backward, "
      "and the analytic plan beside the measured count.";
  spec.parameters = {
      {"layers", "int", "Linear + ReLU layers", "6", "4", {}, 1, 256},
      {"width", "int", "features per layer", "2048", "256", {}, 1, 65536},
      {"batch", "int", "rows per batch", "256", "32", {}, 1, 1 << 20},
      {"steps", "int", "recorded training steps", "3", "3", {}, 1, 1000000},
      {"timed_steps", "int", "further steps, timed", "50", "5", {}, 0, 100000},
      {"optimizer", "choice", "optimizer (foreach, as PyTorch's default on CUDA)", "adam", "adam", {"adam", "adamw", "sgd"}},
      {"lr", "float", "learning rate", "0.001", "0.001", {}, 0, 10},
  };
  return Workload{spec, runAnatomy};
}

}  // namespace sawtooth::workloads
