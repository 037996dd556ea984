// Data parallelism and optimizer-state sharding, per rank (seed: "still too slow / too big → more
// devices"). The anatomy MLP is trained by N ranks, one process each, every rank on its own
// batch, gradients summed through c10d and averaged:
//   plain   — every rank keeps Adam state for every parameter: 4P + 4P + 8P = 16P on each rank;
//   sharded — ZeRO-1: each rank keeps Adam state only for its 1/N of the parameters, steps that
//             share and broadcasts it to the others: 4P + 4P + 8P/N on each rank.
// As PyTorch's DDP does with gradient_as_bucket_view, parameters and gradients live in one flat
// buffer each (the layers' tensors are views into them): the gradients go through one
// all-reduce, and a rank's share of the parameters is one contiguous slice.

#include "workloads/experiments/data_parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "core/analysis/measurement_names.h"
#include "core/analysis/memory_plan.h"
#include "workloads/experiments/process_group.h"
#include "workloads/experiments/recorded_modules.h"
#include "workloads/experiments/torch_support.h"

namespace sawtooth::workloads {
namespace {

struct FlatModel {
  torch::nn::Sequential net;
  std::vector<torch::Tensor> weights;
  int64_t parameters = 0;  // P
  int64_t padded = 0;      // P rounded up to a multiple of the world size
  torch::Tensor flat_params, flat_grads;
};

// The anatomy MLP with its weights moved into one flat parameter buffer and their gradients
// pointed at one flat gradient buffer (backward accumulates into them in place).
FlatModel buildModel(int64_t layers, int64_t width, int world_size, const torch::Device& dev) {
  FlatModel m;
  for (int64_t i = 0; i < layers; ++i) {
    m.net->push_back(torch::nn::Linear(torch::nn::LinearOptions(width, width).bias(false)));
    m.net->push_back(torch::nn::ReLU());
  }
  m.net->to(dev);
  m.weights = m.net->parameters();
  for (const auto& w : m.weights) m.parameters += w.numel();
  m.padded = (m.parameters + world_size - 1) / world_size * world_size;
  const auto options = torch::TensorOptions().device(dev);
  m.flat_params = torch::zeros({m.padded}, options);
  m.flat_grads = torch::zeros({m.padded}, options);
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (auto& w : m.weights) {
    auto slice = m.flat_params.narrow(0, offset, w.numel()).view(w.sizes());
    slice.copy_(w);
    w.set_data(slice);
    w.mutable_grad() = m.flat_grads.narrow(0, offset, w.numel()).view(w.sizes());
    offset += w.numel();
  }
  return m;
}

// This rank's parameters against rank 0's, which come through the process group slice by slice
// (a whole copy, or a float64 copy for the checksum, would add to the rank's peak).
struct Agreement {
  double checksum = 0;       // sum of every parameter, accumulated in float64
  double max_difference = 0;  // largest |this rank's - rank 0's|
};

Agreement compareWithRankZero(RankGroup& group, const torch::Tensor& flat) {
  const int64_t n = flat.numel();
  const int64_t chunk = std::clamp<int64_t>(n / 16, 1, int64_t{1} << 20);
  torch::Tensor reference = torch::empty({std::min(chunk, n)}, flat.options());
  Agreement a;
  for (int64_t offset = 0; offset < n; offset += chunk) {
    const int64_t len = std::min(chunk, n - offset);
    torch::Tensor mine = flat.narrow(0, offset, len);
    torch::Tensor theirs = reference.narrow(0, 0, len);
    if (group.rank() == 0) theirs.copy_(mine);
    group.broadcast(theirs, 0);
    a.checksum += mine.sum(torch::kDouble).item<double>();
    a.max_difference = std::max(a.max_difference, (mine - theirs).abs().max().item<double>());
  }
  return a;
}

void runDataParallel(WorkloadContext& ctx) {
  const auto& p = ctx.params;
  const int64_t layers = p.integer("layers"), width = p.integer("width"), batch = p.integer("batch");
  const int64_t steps = p.integer("steps"), timed = p.integer("timed_steps");
  const std::string variant = p.text("variant");
  const bool sharded = variant == "sharded";
  const DistributedContext& d = ctx.distributed;
  const int world = d.world_size;
  auto& session = ctx.session;
  const torch::Device dev = deviceOf(ctx);

  // The ranks share this machine's cores (torchrun sets OMP_NUM_THREADS=1 for the same reason):
  // N ranks each with every core would fight over them and time the contention.
  const int cpu_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / world);
  if (!ctx.cuda) at::set_num_threads(cpu_threads);

  auto config = p.list();
  config.emplace_back("rank", std::to_string(d.rank));
  config.emplace_back("world_size", std::to_string(world));
  config.emplace_back("backend", ctx.cuda ? "nccl" : "gloo");
  config.emplace_back("device", ctx.cuda ? fmt::format("cuda:{}", ctx.device) : std::string("cpu"));
  if (!ctx.cuda) config.emplace_back("cpu_threads", std::to_string(cpu_threads));
  session.beginRun(variant, "data-parallel", std::move(config));
  PeakWindow peak(ctx);

  std::unique_ptr<RankGroup> group;
  FlatModel model;
  torch::Tensor X, owned;
  std::unique_ptr<ForeachOptimizer> opt;
  std::optional<RecordedModules> modules;
  // The flat buffers are one block each, so they are the root module's (Sequential): per-module
  // bytes still sum to the peak, and each Linear's own parameter bytes are in the module tree.
  auto tagWhole = [&](const torch::Tensor& t, Category category) {
    if (t.defined() && t.data_ptr()) session.tag(t.data_ptr(), deviceIndex(t), category, modules->idOf(*model.net));
  };
  int64_t shard = 0;
  {
    PhaseScope phase(session, "setup");
    group = std::make_unique<RankGroup>(d, ctx.cuda, std::chrono::seconds(p.integer("timeout_s")));
    torch::manual_seed(0);  // the same initial weights everywhere; rank 0's are broadcast anyway, as DDP does
    model = buildModel(layers, width, world, dev);
    modules.emplace(session, *model.net);
    tagWhole(model.flat_params, Category::Parameter);
    tagWhole(model.flat_grads, Category::Gradient);
    group->broadcast(model.flat_params, 0);
    torch::manual_seed(1000 + d.rank);  // each rank trains on its own batch
    X = torch::randn({batch, width}, torch::TensorOptions().device(dev));
    tag(session, X, Category::Input);
    // The optimizer sees one flat tensor: the whole buffer, or this rank's slice of it.
    shard = sharded ? model.padded / world : model.padded;
    const int64_t first = sharded ? d.rank * shard : 0;
    owned = model.flat_params.narrow(0, first, shard);
    owned.mutable_grad() = model.flat_grads.narrow(0, first, shard);
    opt = std::make_unique<ForeachOptimizer>(std::vector<torch::Tensor>{owned}, ForeachOptimizer::Kind::Adam,
                                             p.real("lr"));
  }

  auto step = [&] {
    session.beginStep();
    {
      PhaseScope phase(session, "zero_grad");
      model.flat_grads.zero_();
    }
    torch::Tensor loss;
    {
      PhaseScope phase(session, "forward");
      loss = modules->forwardSequential(model.net, X).sum();
    }
    {
      PhaseScope phase(session, "backward");
      loss.backward();
      loss = torch::Tensor();
    }
    {
      PhaseScope phase(session, "allreduce");
      group->allreduceSum(model.flat_grads);
      model.flat_grads.div_(world);
    }
    {
      PhaseScope phase(session, "optimizer");
      opt->step();
    }
    for (const torch::Tensor& state : opt->state()) tagWhole(state, Category::OptimizerState);
    if (sharded) {
      PhaseScope phase(session, "broadcast");
      for (int owner = 0; owner < world; ++owner) {
        torch::Tensor part = model.flat_params.narrow(0, owner * shard, shard);
        group->broadcast(part, owner);
      }
    }
  };

  // When the ranks are told to stop, one that stops first breaks the collective the others wait
  // in: for them that is the same interruption.
  const auto guarded = [&](const auto& body) {
    try {
      body();
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception&) {
      if (ctx.stop_requested.load()) throw Interrupted();
      throw;
    }
  };

  const int64_t total = steps + timed;
  for (int64_t s = 0; s < steps; ++s) {
    ctx.checkStop();
    guarded(step);
    ctx.progress.report("run", variant, s + 1, total, static_cast<double>(s + 1) / static_cast<double>(total),
                        fmt::format("rank {}: step {} of {}", d.rank, s + 1, steps));
  }
  synchronize(ctx);
  std::vector<Measurement> m = peak.measurements();

  StepTimer timer(ctx);
  for (int64_t s = 0; s < timed; ++s) {
    ctx.checkStop();
    guarded([&] { timer.time(step); });
    if ((s + 1) % 10 == 0 || s + 1 == timed)
      ctx.progress.report("run", variant, steps + s + 1, total,
                          static_cast<double>(steps + s + 1) / static_cast<double>(total), "timing steps");
  }
  for (auto& t : timeMeasurements(measure::kStepTime, timer.samplesMs())) m.push_back(t);

  // Do the ranks agree after the last step?
  {
    PhaseScope phase(session, "verify");
    torch::NoGradGuard no_grad;
    const Agreement agreement = compareWithRankZero(*group, model.flat_params);  // the padding is zeros
    m.push_back({measure::kParamChecksum, agreement.checksum, ""});
    m.push_back({measure::kParamMaxAbsDiffVsRank0, agreement.max_difference, ""});
  }

  // The plan per rank (core/analysis/memory_plan.h): parameters and gradients whole everywhere,
  // Adam's two moments for the parameters the rank steps (all of them, or its 1/N), the
  // activations kept for backward (each layer's ReLU output) and the input.
  PlanInputs plan;
  plan.parameters = model.parameters;
  plan.stored_parameters = model.padded;  // the padding is zeros
  plan.optimizer_parameters = shard;
  plan.state_per_parameter = opt->stateFactor();
  plan.activation_elements = layers * batch * width;
  plan.input_elements = batch * width;
  const MemoryPlan planned = planMemory(plan);
  for (auto& x : planned.measurements(static_cast<double>(peak.peakAllocated()))) m.push_back(std::move(x));
  m.push_back({measure::kAllreduceBytesPerStep, planned.parameter_bytes, measure::kBytes});
  session.endRun(std::move(m));
}

}  // namespace

Workload dataParallelWorkload() {
  WorkloadSpec spec;
  spec.name = "data-parallel";
  spec.title = "Data parallel, per rank";
  spec.description =
      "The anatomy MLP trained on N ranks (sawtooth-record --ranks N), one process each, through LibTorch's c10d "
      "(Gloo on CPUs, NCCL on GPUs, one GPU per rank): each rank's memory, plain data parallel (16P per rank) "
      "against ZeRO-1 optimizer-state sharding (4P + 4P + 8P/N), and a check that all ranks end with the same "
      "parameters.";
  spec.distributed = true;
  spec.parameters = {
      {"variant", "choice",
       "plain: all-reduce the gradients, every rank steps Adam on every parameter; sharded: each rank keeps Adam "
       "state for its 1/N of the parameters, steps it and broadcasts it",
       "plain", "plain", {"plain", "sharded"}},
      {"layers", "int", "Linear + ReLU layers", "6", "4", {}, 1, 256},
      {"width", "int", "features per layer", "2048", "256", {}, 1, 65536},
      {"batch", "int", "rows per batch on each rank", "256", "32", {}, 1, 1 << 20},
      {"steps", "int", "recorded training steps", "3", "3", {}, 1, 1000000},
      {"timed_steps", "int", "further steps, timed", "20", "2", {}, 0, 100000},
      {"lr", "float", "Adam learning rate", "0.001", "0.001", {}, 0, 10},
      {"timeout_s", "int", "seconds a rank waits for the others (rendezvous, each collective) before failing", "300",
       "120", {}, 1, 86400},
  };
  return Workload{spec, runDataParallel};
}

}  // namespace sawtooth::workloads
