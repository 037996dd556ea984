// Gradient accumulation (seed): B_global = B_micro × k. First the seed's exact check — Linear(1024, 1),
// 128 rows, MSE: one full-batch backward against 4 micro-batches of 32 with the loss scaled by 1/4 —
// reporting the largest gradient difference. Then, on an MLP whose activations outweigh its
// parameters (the case accumulation is for), peak memory and time per global batch for k = 1, 2, 4, 8:
// activations shrink with the micro-batch, but from k = 2 on backward also holds a second gradient
// while it accumulates, and wall-clock stays about the same.

#include "workloads/experiments/accumulation.h"

#include <fmt/format.h>

#include "core/analysis/measurement_names.h"
#include "workloads/experiments/recorded_modules.h"
#include "workloads/experiments/torch_support.h"

namespace sawtooth::workloads {
namespace {

void exactCheck(WorkloadContext& ctx) {
  const auto& p = ctx.params;
  const int64_t features = p.integer("features"), rows = p.integer("rows"), micro = p.integer("micro_batches");
  auto& session = ctx.session;
  const torch::Device dev = deviceOf(ctx);
  torch::manual_seed(0);
  session.beginRun("exact_check", "accumulation",
                   {{"features", std::to_string(features)}, {"rows", std::to_string(rows)},
                    {"micro_batches", std::to_string(micro)}, {"loss", "mse"}});
  torch::nn::Linear net(features, 1);
  net->to(dev);
  RecordedModules modules(session, *net);
  modules.tagParameters();
  auto forward = [&](const torch::Tensor& x) { return modules.call(*net, [&] { return net->forward(x); }); };
  auto X = torch::randn({rows, features}, torch::TensorOptions().device(dev));
  auto y = torch::randn({rows, 1}, torch::TensorOptions().device(dev));
  tag(session, X, Category::Input);
  tag(session, y, Category::Input);
  torch::nn::MSELoss loss;

  net->zero_grad();
  {
    PhaseScope phase(session, "full_batch");
    loss(forward(X), y).backward();
  }
  auto full = net->weight.grad().clone();
  net->zero_grad();
  {
    PhaseScope phase(session, "accumulated");
    const int64_t mb = rows / micro;
    for (int64_t i = 0; i < micro; ++i) {
      auto xb = X.slice(0, i * mb, (i + 1) * mb), yb = y.slice(0, i * mb, (i + 1) * mb);
      (loss(forward(xb), yb) / static_cast<double>(micro)).backward();  // MSE already averages
    }
  }
  auto accumulated = net->weight.grad().clone();
  const double diff = (full - accumulated).abs().max().item<double>();
  session.endRun({{measure::kMaxGradDiff, diff, ""},
                  {"grad_abs_max", full.abs().max().item<double>(), ""}});
  ctx.progress.report("run", "exact_check", 1, 1, 0.1, fmt::format("max gradient difference {:.3g}", diff));
}

void scaling(WorkloadContext& ctx) {
  const auto& p = ctx.params;
  const int64_t in = p.integer("big_in"), hidden = p.integer("big_hidden"), batch = p.integer("global_batch");
  const int64_t warmup = p.integer("warmup"), repeats = p.integer("repeats");
  auto& session = ctx.session;
  const torch::Device dev = deviceOf(ctx);
  torch::manual_seed(0);

  torch::nn::Sequential net(torch::nn::Linear(in, hidden), torch::nn::ReLU(), torch::nn::Linear(hidden, hidden),
                            torch::nn::ReLU(), torch::nn::Linear(hidden, 10));
  net->to(dev);
  auto params = net->parameters();
  RecordedModules modules(session, *net);
  modules.tagParameters();
  auto X = torch::randn({batch, in}, torch::TensorOptions().device(dev));
  auto y = torch::randint(0, 10, {batch}, torch::TensorOptions().device(dev).dtype(torch::kLong));
  tag(session, X, Category::Input);
  tag(session, y, Category::Input);
  ForeachOptimizer opt(params, ForeachOptimizer::Kind::Sgd, 0.01);
  torch::nn::CrossEntropyLoss criterion;

  const std::vector<int64_t> ks = {1, 2, 4, 8};
  const int64_t total = static_cast<int64_t>(ks.size()) * (warmup + repeats);
  int64_t done = 0;
  for (int64_t k : ks) {
    if (batch % k != 0) continue;
    const int64_t micro = batch / k;
    auto config = p.list();
    config.emplace_back("k", std::to_string(k));
    config.emplace_back("micro_batch", std::to_string(micro));
    session.beginRun(fmt::format("k={}", k), "accumulation", config);
    auto global_step = [&] {
      session.beginStep();
      {
        PhaseScope phase(session, "zero_grad");
        opt.zeroGrad();
      }
      for (int64_t i = 0; i < k; ++i) {
        torch::Tensor l;
        {
          PhaseScope phase(session, "forward");
          l = criterion(modules.forwardSequential(net, X.slice(0, i * micro, (i + 1) * micro)), y.slice(0, i * micro, (i + 1) * micro)) /
              static_cast<double>(k);
        }
        PhaseScope phase(session, "backward");
        l.backward();
      }
      modules.tagGradients();
      PhaseScope phase(session, "optimizer");
      opt.step();
    };
    for (int64_t s = 0; s < warmup; ++s) {
      ctx.checkStop();
      global_step();
      ++done;
    }
    synchronize(ctx);
    PeakWindow peak(ctx);
    StepTimer timer(ctx);
    for (int64_t s = 0; s < repeats; ++s) {
      ctx.checkStop();
      timer.time(global_step);
      ++done;
      ctx.progress.report("run", fmt::format("k={}", k), s + 1, repeats, 0.1 + 0.9 * static_cast<double>(done) / static_cast<double>(total),
                          fmt::format("k={}: global batch {} of {}", k, s + 1, repeats));
    }
    auto m = timeMeasurements(measure::kGlobalBatchTime, timer.samplesMs());
    for (auto& x : peak.measurements()) m.push_back(x);
    session.endRun(std::move(m));
  }
}

void runAccumulation(WorkloadContext& ctx) {
  exactCheck(ctx);
  scaling(ctx);
}

}  // namespace

Workload accumulationWorkload() {
  WorkloadSpec spec;
  spec.name = "accumulation";
  spec.title = "Gradient accumulation";
  spec.description =
      "The seed's exact check (Linear(1024, 1), 128 rows, MSE, 4 micro-batches of 32, loss / 4) with the largest "
      "gradient difference to the full batch; then an MLP's peak memory and time per global batch for k = 1, 2, 4, 8.";
  spec.parameters = {
      {"features", "int", "exact check: input features", "1024", "1024", {}, 1, 1 << 20},
      {"rows", "int", "exact check: rows in the full batch", "128", "128", {}, 1, 1 << 20},
      {"micro_batches", "int", "exact check: micro-batches", "4", "4", {}, 1, 1024},
      {"big_in", "int", "scaling MLP: input features", "1024", "64", {}, 1, 65536},
      {"big_hidden", "int", "scaling MLP: hidden width", "4096", "128", {}, 1, 65536},
      {"global_batch", "int", "scaling MLP: rows per global batch (divisible by 8)", "16384", "1024", {}, 8, 1 << 22},
      {"warmup", "int", "untimed global batches per k", "3", "1", {}, 0, 1000},
      {"repeats", "int", "timed global batches per k", "10", "3", {}, 1, 10000},
  };
  return Workload{spec, runAccumulation};
}

}  // namespace sawtooth::workloads
