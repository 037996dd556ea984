// Both checkpointing forms on the CPU: gradients equal to storing everything, the recomputation
// of the non-reentrant form stopping before the block's last matmul, what it keeps alive, and its
// errors.

#include <gtest/gtest.h>

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <atomic>

#include "workloads/experiments/checkpoint.h"

namespace sawtooth::workloads {
namespace {

// The seed's block, x + Linear → GELU → Linear, counting how far each call got.
struct CountingBlock {
  explicit CountingBlock(int64_t width) : fc1(width, width), fc2(width, width) {}
  torch::Tensor operator()(const torch::Tensor& x) {
    ++started;
    torch::Tensor g = torch::gelu(fc1->forward(x));
    torch::Tensor y = fc2->forward(g);
    ++finished;  // not reached when a recomputation stops at fc2's matmul
    return x + y;
  }
  torch::nn::Linear fc1, fc2;
  int started = 0, finished = 0;
};

enum class Form { StoreAll, Reentrant, NonReentrant };

struct Net {
  Net(int64_t count, int64_t width) {
    torch::manual_seed(0);
    for (int64_t i = 0; i < count; ++i) blocks.push_back(std::make_unique<CountingBlock>(width));
    for (auto& b : blocks) fns.emplace_back([p = b.get()](const torch::Tensor& x) { return (*p)(x); });
  }
  std::vector<torch::Tensor> parameters() const {
    std::vector<torch::Tensor> out;
    for (const auto& b : blocks)
      for (auto* m : {&b->fc1, &b->fc2})
        for (auto& t : (*m)->parameters()) out.push_back(t);
    return out;
  }
  torch::Tensor forward(const torch::Tensor& x, Form form, int64_t every) {
    torch::Tensor h = x;
    for (size_t i = 0; i < blocks.size(); ++i) {
      const bool ckpt = form != Form::StoreAll && i % static_cast<size_t>(every) == 0;
      if (!ckpt) h = fns[i](h);
      else if (form == Form::Reentrant) h = checkpointReentrant(fns[i], h, nullptr);
      else h = checkpointNonReentrant(fns[i], h, nullptr);
    }
    return h;
  }
  // Gradients of the parameters and the input after one forward + backward of sum(net(x)).
  std::vector<torch::Tensor> gradients(const torch::Tensor& x, Form form, int64_t every) {
    for (auto& p : parameters()) p.mutable_grad() = torch::Tensor();
    x.mutable_grad() = torch::Tensor();
    forward(x, form, every).sum().backward();
    std::vector<torch::Tensor> out;
    for (auto& p : parameters()) out.push_back(p.grad().clone());
    out.push_back(x.grad().clone());
    return out;
  }
  std::vector<std::unique_ptr<CountingBlock>> blocks;
  std::vector<BlockFn> fns;
};

torch::Tensor input(int64_t rows, int64_t width) {
  torch::manual_seed(1);
  return torch::randn({rows, width}, torch::requires_grad());
}

TEST(Checkpoint, NonReentrantGradientsEqualStoreAllExactly) {
  Net net(4, 32);
  const torch::Tensor x = input(16, 32);
  const auto reference = net.gradients(x, Form::StoreAll, 1);
  for (int64_t every : {1, 2, 4}) {
    const auto grads = net.gradients(x, Form::NonReentrant, every);
    ASSERT_EQ(grads.size(), reference.size());
    for (size_t i = 0; i < grads.size(); ++i)
      EXPECT_TRUE(torch::equal(grads[i], reference[i])) << "every " << every << ", gradient " << i;
  }
}

TEST(Checkpoint, ReentrantGradientsEqualStoreAll) {
  Net net(4, 32);
  const torch::Tensor x = input(16, 32);
  const auto reference = net.gradients(x, Form::StoreAll, 1);
  for (int64_t every : {1, 2}) {
    const auto grads = net.gradients(x, Form::Reentrant, every);
    for (size_t i = 0; i < grads.size(); ++i)
      EXPECT_TRUE(torch::allclose(grads[i], reference[i], 0, 1e-6)) << "every " << every << ", gradient " << i;
  }
}

TEST(Checkpoint, NonReentrantRecomputationStopsBeforeTheLastMatmul) {
  Net net(3, 16);
  const torch::Tensor x = input(8, 16);
  net.forward(x, Form::NonReentrant, 1).sum().backward();
  for (const auto& b : net.blocks) {
    EXPECT_EQ(b->started, 2);   // forward and one recomputation
    EXPECT_EQ(b->finished, 1);  // the recomputation never got past fc2
  }
}

TEST(Checkpoint, ReentrantRecomputesWholeBlocks) {
  Net net(3, 16);
  const torch::Tensor x = input(8, 16);
  net.forward(x, Form::Reentrant, 1).sum().backward();
  for (const auto& b : net.blocks) EXPECT_EQ(b->finished, 2);
}

TEST(Checkpoint, WithoutGradientsTheBlockJustRuns) {
  Net net(2, 8);
  const torch::Tensor x = input(4, 8);
  torch::Tensor out;
  {
    torch::NoGradGuard no_grad;
    out = net.forward(x, Form::NonReentrant, 1);
  }
  EXPECT_FALSE(out.requires_grad());
  EXPECT_TRUE(torch::allclose(out, net.forward(x, Form::StoreAll, 1)));
}

TEST(Checkpoint, RetainedGraphRecomputesForTheSecondBackward) {
  Net net(2, 8);
  const torch::Tensor x = input(4, 8);
  const auto once = net.gradients(x, Form::StoreAll, 1);
  for (auto& p : net.parameters()) p.mutable_grad() = torch::Tensor();
  x.mutable_grad() = torch::Tensor();
  torch::Tensor loss = net.forward(x, Form::NonReentrant, 1).sum();
  loss.backward({}, /*retain_graph=*/true);
  loss.backward();
  const auto params = net.parameters();
  for (size_t i = 0; i < params.size(); ++i) EXPECT_TRUE(torch::allclose(params[i].grad(), 2 * once[i]));
  EXPECT_TRUE(torch::allclose(x.grad(), 2 * once.back()));
}

TEST(Checkpoint, RngIsReplayedForTheRecomputation) {
  // Dropout inside the block: the recomputation must draw the same mask as the forward.
  torch::nn::Linear fc(8, 8);
  BlockFn block = [&](const torch::Tensor& x) { return torch::dropout(fc->forward(x), 0.5, true); };
  const torch::Tensor x = input(64, 8);
  auto grads = [&](bool ckpt) {
    fc->weight.mutable_grad() = torch::Tensor();
    torch::manual_seed(7);
    (ckpt ? checkpointNonReentrant(block, x, nullptr) : block(x)).sum().backward();
    return fc->weight.grad().clone();
  };
  const torch::Tensor plain = grads(false);
  torch::manual_seed(123);  // the state at backward differs from the state at forward
  EXPECT_TRUE(torch::equal(grads(true), plain));
}

TEST(Checkpoint, NestingIsRefused) {
  torch::nn::Linear fc(4, 4);
  BlockFn inner = [&](const torch::Tensor& x) { return fc->forward(x); };
  BlockFn outer = [&](const torch::Tensor& x) { return checkpointNonReentrant(inner, x, nullptr); };
  EXPECT_THROW(checkpointNonReentrant(outer, input(2, 4), nullptr), c10::Error);
}

TEST(Checkpoint, ABlockThatSavesDifferentTensorsWhenRecomputedIsAnError) {
  torch::nn::Linear fc(4, 4);
  int calls = 0;
  BlockFn changing = [&](const torch::Tensor& x) {
    return ++calls == 1 ? torch::relu(fc->forward(x)) : torch::gelu(fc->forward(x.repeat({2, 1})));
  };
  torch::Tensor out = checkpointNonReentrant(changing, input(2, 4), nullptr);
  EXPECT_THROW(out.sum().backward(), c10::Error);
}

// Live CPU bytes while backward runs, through c10's memory reporting (what the recorder uses).
class LiveBytes : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void*, int64_t size, size_t, size_t, c10::Device) override {
    live_ += size;
    peak_ = std::max(peak_, live_);
  }
  bool memoryProfilingEnabled() const override { return true; }
  void resetPeak() { peak_ = live_; }
  int64_t peak() const { return peak_; }

 private:
  int64_t live_ = 0, peak_ = 0;
};

int64_t backwardPeakAboveStart(Form form, int64_t rows, int64_t width) {
  Net net(1, width);
  const torch::Tensor x = input(rows, width);
  auto reporter = std::make_shared<LiveBytes>();
  c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, reporter);
  torch::Tensor loss = net.forward(x, form, 1).sum();
  reporter->resetPeak();
  const int64_t before = reporter->peak();
  loss.backward();
  return reporter->peak() - before;
}

TEST(Checkpoint, NonReentrantKeepsOneTensorLessThanReentrant) {
  // One block. The reentrant recomputation makes fc2's output (freed when the block returns) and
  // the block's output x + fc2(g), which it keeps while it backpropagates through it; the
  // non-reentrant one makes neither, so its backward peaks one rows × width float tensor lower.
  const int64_t rows = 512, width = 256, tensor = rows * width * 4;
  const int64_t reentrant = backwardPeakAboveStart(Form::Reentrant, rows, width);
  const int64_t non_reentrant = backwardPeakAboveStart(Form::NonReentrant, rows, width);
  EXPECT_EQ(reentrant - non_reentrant, tensor) << "reentrant " << reentrant << ", non-reentrant " << non_reentrant;
}

}  // namespace
}  // namespace sawtooth::workloads
