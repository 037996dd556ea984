// Mixed precision, fairly measured (seed): the same MLP and batch trained with fp32 (TF32 off),
// TF32, bf16 autocast and fp16 autocast with dynamic loss scaling. Each mode is a run with its
// precision settings recorded; step time is the median (min, max) of timed steps after warm-up,
// CUDA events on the GPU; achieved TFLOP/s from the counted matmul FLOPs; peak memory per mode.

#include "workloads/experiments/precision.h"

#include <fmt/format.h>

#include "core/analysis/measurement_names.h"
#include "workloads/experiments/recorded_modules.h"
#include "workloads/experiments/torch_support.h"

namespace sawtooth::workloads {
namespace {

struct Mode {
  std::string name;
  std::string matmul_precision;  // torch.set_float32_matmul_precision
  bool autocast;
  torch::ScalarType dtype;
  bool loss_scaling;
};

const std::vector<Mode>& allModes() {
  static const std::vector<Mode> modes = {
      {"fp32", "highest", false, torch::kFloat32, false},
      {"tf32", "high", false, torch::kFloat32, false},
      {"bf16", "high", true, torch::kBFloat16, false},
      {"fp16", "high", true, torch::kFloat16, true},
  };
  return modes;
}

void runPrecision(WorkloadContext& ctx) {
  const auto& p = ctx.params;
  const int64_t side = p.integer("side"), hidden = p.integer("hidden"), classes = p.integer("classes");
  const int64_t batch = p.integer("batch"), warmup = p.integer("warmup"), steps = p.integer("steps");
  const int64_t in = side * side;
  auto& session = ctx.session;
  const torch::Device dev = deviceOf(ctx);
  torch::manual_seed(0);

  std::vector<Mode> modes;
  for (const auto& m : allModes())
    if (p.text("modes") == "all" || p.text("modes") == m.name) modes.push_back(m);

  // One network for every mode, as in the seed.
  torch::nn::Sequential net(torch::nn::Flatten(), torch::nn::Linear(in, hidden), torch::nn::ReLU(),
                            torch::nn::Linear(hidden, hidden), torch::nn::ReLU(), torch::nn::Linear(hidden, classes));
  net->to(dev);
  auto params = net->parameters();
  RecordedModules modules(session, *net);
  modules.tagParameters();
  auto X = torch::randn({batch, 1, side, side}, torch::TensorOptions().device(dev));
  auto y = torch::randint(0, classes, {batch}, torch::TensorOptions().device(dev).dtype(torch::kLong));
  tag(session, X, Category::Input);
  tag(session, y, Category::Input);
  ForeachOptimizer opt(params, ForeachOptimizer::Kind::Sgd, p.real("lr"));
  torch::nn::CrossEntropyLoss criterion;
  // Forward FLOPs of the three matmuls; a training step counts three times that (forward, and
  // backward's gradients of inputs and weights), the seed reference's convention.
  const double step_flops =
      3 * (linearFlops(batch, in, hidden) + linearFlops(batch, hidden, hidden) + linearFlops(batch, hidden, classes));

  const int64_t total = static_cast<int64_t>(modes.size()) * (warmup + steps);
  int64_t done = 0;
  for (const Mode& mode : modes) {
    at::globalContext().setFloat32MatmulPrecision(mode.matmul_precision);
    std::vector<std::pair<std::string, std::string>> config = p.list();
    config.emplace_back("mode", mode.name);
    config.emplace_back("float32_matmul_precision", mode.matmul_precision);
    config.emplace_back("autocast", mode.autocast ? std::string(c10::toString(mode.dtype)) : "off");
    config.emplace_back("loss_scaling", mode.loss_scaling ? "dynamic (init 65536, growth 2, backoff 0.5, interval 2000)" : "off");
    config.emplace_back("allow_tf32_cublas", at::globalContext().allowTF32CuBLAS() ? "true" : "false");
    session.beginRun(mode.name, "precision", config);

    std::unique_ptr<LossScaler> scaler;
    if (mode.loss_scaling) scaler = std::make_unique<LossScaler>(dev);
    torch::Tensor last_loss;
    auto step = [&] {
      session.beginStep();
      {
        PhaseScope phase(session, "zero_grad");
        opt.zeroGrad();
      }
      torch::Tensor loss;
      {
        PhaseScope phase(session, "forward");
        AutocastScope autocast(ctx, mode.autocast, mode.dtype);
        loss = criterion(modules.forwardSequential(net, X), y);
      }
      {
        PhaseScope phase(session, "backward");
        (scaler ? scaler->scale(loss) : loss).backward();
      }
      modules.tagGradients();
      {
        PhaseScope phase(session, "optimizer");
        if (scaler) scaler->step(opt, params);
        else opt.step();
      }
      modules.tagOptimizerState(opt);
      last_loss = loss.detach();
    };

    for (int64_t s = 0; s < warmup; ++s) {
      ctx.checkStop();
      step();
      ++done;
    }
    synchronize(ctx);
    PeakWindow peak(ctx);
    StepTimer timer(ctx);
    for (int64_t s = 0; s < steps; ++s) {
      ctx.checkStop();
      timer.time(step);
      ++done;
      if ((s + 1) % 10 == 0 || s + 1 == steps)
        ctx.progress.report("run", mode.name, s + 1, steps, static_cast<double>(done) / static_cast<double>(total),
                            fmt::format("{}: step {} of {}", mode.name, s + 1, steps));
    }
    const auto times = timer.samplesMs();
    std::vector<Measurement> m = timeMeasurements(measure::kStepTime, times);
    const Stats st = statsOf(times);
    for (auto& x : peak.measurements()) m.push_back(x);
    m.push_back({measure::kStepFlops, step_flops, measure::kFlop});
    if (st.median > 0) m.push_back({measure::kAchievedTflops, step_flops / (st.median * 1e-3) / 1e12, measure::kTflopPerS});
    m.push_back({measure::kFinalLoss, last_loss.defined() ? last_loss.item<double>() : 0.0, ""});
    if (scaler) {
      m.push_back({measure::kFinalLossScale, scaler->currentScale(), ""});
      m.push_back({measure::kSkippedSteps, static_cast<double>(scaler->skippedSteps()), measure::kSteps});
    }
    session.endRun(std::move(m));
    ctx.progress.report("run", mode.name, steps, steps, static_cast<double>(done) / static_cast<double>(total),
                        fmt::format("{}: median {:.3f} ms per step", mode.name, st.median));
  }
  at::globalContext().setFloat32MatmulPrecision("highest");
}

}  // namespace

Workload precisionWorkload() {
  WorkloadSpec spec;
  spec.name = "precision";
  spec.title = "Mixed precision, fairly measured";
  spec.description =
      "Flatten → Linear(side², hidden) → ReLU → Linear(hidden, hidden) → ReLU → Linear(hidden, classes), SGD, "
      "cross-entropy: step time for fp32 with TF32 off, TF32, bf16 autocast and fp16 autocast with dynamic loss "
      "scaling, with peak memory and achieved TFLOP/s per mode.";
  spec.parameters = {
      {"side", "int", "input images are side × side (one channel)", "64", "16", {}, 1, 1024},
      {"hidden", "int", "hidden width", "8192", "512", {}, 1, 65536},
      {"classes", "int", "output classes", "10", "10", {}, 2, 100000},
      {"batch", "int", "rows per batch", "2048", "64", {}, 1, 1 << 20},
      {"warmup", "int", "untimed steps first", "10", "2", {}, 0, 10000},
      {"steps", "int", "timed steps per mode", "50", "5", {}, 1, 100000},
      {"lr", "float", "SGD learning rate", "0.01", "0.01", {}, 0, 10},
      {"modes", "choice", "which precision modes to run", "all", "all", {"all", "fp32", "tf32", "bf16", "fp16"}},
  };
  return Workload{spec, runPrecision};
}

}  // namespace sawtooth::workloads
