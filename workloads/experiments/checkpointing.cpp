// Activation checkpointing (seed): residual blocks x + Linear → GELU → Linear over a large input.
// Runs: store every activation, and checkpoint every 4th, every 2nd and every block, each in
// PyTorch's two forms side by side — reentrant (recompute the whole block) and non-reentrant (the
// seed's use_reentrant=False: recompute only until backward has the tensors it saved). Checkpointed
// blocks keep only their input; recomputation is marked as phase "recompute". For each run: peak
// memory of one forward + backward, fwd+bwd time, and the largest gradient difference to store-all
// (checkpointing must not change the gradients).

#include "workloads/experiments/checkpointing.h"

#include <fmt/format.h>

#include "core/analysis/measurement_names.h"
#include "workloads/experiments/checkpoint.h"
#include "workloads/experiments/recorded_modules.h"
#include "workloads/experiments/torch_support.h"

namespace sawtooth::workloads {
namespace {

struct Variant {
  std::string name;
  int64_t every;  // checkpoint block i when i % every == 0; 0 = never
  bool reentrant = false;
};

// Each non-reentrant run right after its reentrant twin, so that the bars pair up; the seed's
// form of checkpointing every block comes last (the ladder's rung reads the last run).
std::vector<Variant> allVariants() {
  return {{"store_all", 0},           {"every_4th_reentrant", 4, true}, {"every_4th", 4},
          {"every_2nd_reentrant", 2, true}, {"every_2nd", 2},           {"every_block_reentrant", 1, true},
          {"every_block", 1}};
}

struct BlockImpl : torch::nn::Module {
  BlockImpl(int64_t width) {
    fc1 = register_module("fc1", torch::nn::Linear(width, width));
    fc2 = register_module("fc2", torch::nn::Linear(width, width));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    if (!modules) return x + fc2->forward(torch::gelu(fc1->forward(x)));
    return modules->call(*this, [&] {
      torch::Tensor h = modules->call(*fc1, [&] { return fc1->forward(x); });
      h = torch::gelu(h);
      h = modules->call(*fc2, [&] { return fc2->forward(h); });
      return x + h;
    });
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  RecordedModules* modules = nullptr;  // marks each call in the recording (a recomputation's too)
};
TORCH_MODULE(Block);

void runCheckpointing(WorkloadContext& ctx) {
  const auto& p = ctx.params;
  const int64_t nblocks = p.integer("blocks"), width = p.integer("width"), rows = p.integer("rows");
  const int64_t warmup = p.integer("warmup"), repeats = p.integer("repeats");
  auto& session = ctx.session;
  const torch::Device dev = deviceOf(ctx);
  torch::manual_seed(0);

  // One engine for every run (non-reentrant checkpointing needs its saved-tensor hooks).
  useCheckpointEngine();
  std::vector<Variant> variants = allVariants();
  if (p.text("variants") != "all") {
    std::vector<Variant> chosen;
    for (const auto& v : variants)
      if (v.name == p.text("variants") || v.name == "store_all") chosen.push_back(v);
    variants = chosen;
  }

  std::vector<Block> blocks;
  std::vector<torch::Tensor> params;
  std::vector<BlockFn> fns;
  for (int64_t i = 0; i < nblocks; ++i) {
    blocks.emplace_back(width);
    blocks.back()->to(dev);
    for (auto& t : blocks.back()->parameters()) params.push_back(t);
  }
  torch::nn::ModuleList model;  // the recording's root, "Blocks": its modules 0, 1, ... are the blocks
  for (auto& b : blocks) model->push_back(b);
  RecordedModules modules(session, *model, "Blocks");
  for (auto& b : blocks) b->modules = &modules;
  for (auto& b : blocks) fns.push_back([b](const torch::Tensor& x) mutable { return b->forward(x); });
  modules.tagParameters();
  auto X = torch::randn({rows, width}, torch::TensorOptions().device(dev).requires_grad(true));
  tag(session, X, Category::Input);

  auto forward = [&](const Variant& v) {
    capture::ModuleScope root(&session, modules.idOf(*model));
    torch::Tensor h = X;
    for (int64_t i = 0; i < nblocks; ++i) {
      const auto b = static_cast<size_t>(i);
      if (v.every == 0 || i % v.every != 0) h = blocks[b]->forward(h);
      else if (v.reentrant) h = checkpointReentrant(fns[b], h, &session);
      else h = checkpointNonReentrant(fns[b], h, &session);
    }
    return h.sum();
  };
  auto clearGrads = [&] {
    for (auto& t : params) t.mutable_grad() = torch::Tensor();
    X.mutable_grad() = torch::Tensor();
  };
  // Gradients copied out of the allocator (plain host vectors), so that the reference kept for
  // comparison does not count towards the next runs' peaks.
  auto gradients = [&] {
    std::vector<std::vector<float>> g;
    auto copy = [&](const torch::Tensor& t) {
      const torch::Tensor host = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
      g.emplace_back(host.data_ptr<float>(), host.data_ptr<float>() + host.numel());
    };
    for (auto& t : params) copy(t.grad());
    copy(X.grad());
    return g;
  };

  std::vector<std::vector<float>> reference;
  const int64_t total = static_cast<int64_t>(variants.size()) * (1 + warmup + repeats);
  int64_t done = 0;
  for (const Variant& v : variants) {
    auto config = p.list();
    config.emplace_back("checkpoint_every", v.every == 0 ? "never" : std::to_string(v.every));
    config.emplace_back("checkpointed_blocks",
                        std::to_string(v.every == 0 ? 0 : (nblocks + v.every - 1) / v.every));
    config.emplace_back("checkpoint_form", v.every == 0 ? "none" : v.reentrant ? "reentrant" : "non-reentrant");
    session.beginRun(v.name, "checkpointing", config);
    ctx.checkStop();

    // Peak of one forward + backward with no gradients yet (as the seed measures it).
    clearGrads();
    std::vector<Measurement> m;
    {
      PeakWindow peak(ctx);
      torch::Tensor loss;
      {
        PhaseScope phase(session, "forward");
        loss = forward(v);
      }
      {
        PhaseScope phase(session, "backward");
        loss.backward();
      }
      synchronize(ctx);
      m = peak.measurements();
      modules.tagGradients();
      tag(session, X.grad(), Category::Gradient);
    }
    ++done;
    auto grads = gradients();
    if (reference.empty()) reference = grads;
    double diff = 0;
    for (size_t i = 0; i < grads.size(); ++i)
      for (size_t j = 0; j < grads[i].size(); ++j)
        diff = std::max(diff, static_cast<double>(std::fabs(grads[i][j] - reference[i][j])));
    m.push_back({measure::kGradMaxAbsDiffVsStoreAll, diff, ""});
    grads.clear();

    // fwd+bwd time; gradients accumulate across repeats, as in the seed's benchmark loop.
    StepTimer timer(ctx);
    for (int64_t r = 0; r < warmup + repeats; ++r) {
      ctx.checkStop();
      auto once = [&] {
        session.beginStep();
        torch::Tensor loss;
        {
          PhaseScope phase(session, "forward");
          loss = forward(v);
        }
        PhaseScope phase(session, "backward");
        loss.backward();
      };
      if (r < warmup) once();
      else timer.time(once);
      ++done;
      ctx.progress.report("run", v.name, r + 1, warmup + repeats, static_cast<double>(done) / static_cast<double>(total),
                          fmt::format("{}: pass {} of {}", v.name, r + 1, warmup + repeats));
    }
    for (auto& t : timeMeasurements(measure::kFwdBwd, timer.samplesMs())) m.push_back(t);
    session.endRun(std::move(m));
  }
}

}  // namespace

Workload checkpointingWorkload() {
  WorkloadSpec spec;
  spec.name = "checkpointing";
  spec.title = "Activation checkpointing";
  spec.description =
      "Residual blocks x + Linear(width, width) → GELU → Linear(width, width) on a rows × width input: peak memory and "
      "fwd+bwd time storing every activation versus checkpointing every 4th, every 2nd and every block (recompute in "
      "backward), each both reentrant (the whole block again) and non-reentrant (the seed's use_reentrant=False: only "
      "until backward has what it saved), with the gradients checked equal to store-all.";
  spec.parameters = {
      {"blocks", "int", "residual blocks", "16", "4", {}, 1, 1024},
      {"width", "int", "features", "1024", "128", {}, 1, 65536},
      {"rows", "int", "input rows", "16384", "256", {}, 1, 1 << 24},
      {"warmup", "int", "untimed passes per variant", "3", "1", {}, 0, 1000},
      {"repeats", "int", "timed passes per variant", "10", "3", {}, 1, 10000},
      {"variants", "choice", "which checkpointing variants (store_all always runs, as the reference)", "all", "all",
       {"all", "every_4th", "every_2nd", "every_block", "every_4th_reentrant", "every_2nd_reentrant",
        "every_block_reentrant"}},
  };
  return Workload{spec, runCheckpointing};
}

}  // namespace sawtooth::workloads
