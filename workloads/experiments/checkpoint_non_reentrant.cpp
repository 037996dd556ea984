// Non-reentrant checkpointing (torch.utils.checkpoint(..., use_reentrant=False)) in C++.
//
// Why this route works in LibTorch 2.11: Python implements the non-reentrant form with saved-tensor
// hooks (torch.autograd.graph.saved_tensors_hooks), and LibTorch's public hook stack
// (at::SavedTensorDefaultHooks::push_hooks) takes Python objects only. But every SavedVariable,
// when an op saves a tensor for backward, asks the default autograd engine for hooks:
// SavedVariable::get_default_hooks() calls Engine::get_default_engine()
// .get_default_saved_variable_hooks(), a virtual that returns nullptr in the base Engine — the
// way torch_python's PythonEngine plugs Python's hooks in. torch::autograd::set_default_engine_stub
// replaces the default engine; CheckpointEngine below is the base Engine with that one virtual
// overridden to return C++ hooks while a checkpointed block runs on the current thread. Everything
// else (scheduling, device threads) is the base engine's code.
//
// With the hooks, the algorithm is torch/utils/checkpoint.py's:
// - forward: the block runs with gradients on and builds its graph as usual, but each tensor its
//   graph saves is packed into an empty Holder (its shape, dtype and device noted, nothing kept);
//   the frame keeps only the block's input and the RNG/autocast state;
// - backward: the first unpack of any holder runs the block again from the input, with the
//   forward's RNG and autocast state, under hooks that put the k-th saved tensor into the k-th
//   holder; as soon as the last holder is filled the pack hook throws StopRecomputation, so the
//   op that was saving (fc2's matmul in the seed's block) never runs and nothing after it is
//   materialised. An unpack hands its tensor over and empties its holder, so a recomputed tensor
//   lives only until the backward node that needed it has run.

#include <mutex>
#include <optional>
#include <utility>

#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/graph_task.h>
#include <torch/csrc/autograd/saved_variable_hooks.h>

#include "capture/torch/capture_session.h"
#include "workloads/experiments/checkpoint.h"
#include "workloads/experiments/forward_state.h"

namespace sawtooth::workloads {
namespace {

using torch::autograd::SavedVariableHooks;

// Thrown by the recomputation's pack hook once the last needed tensor exists; it unwinds the op
// that was saving and is caught where the recomputation started.
struct StopRecomputation {};

struct Holder {
  std::vector<int64_t> sizes;
  at::ScalarType dtype = at::kFloat;
  at::Device device = at::kCPU;
  torch::Tensor recomputed;  // filled by a recomputation, emptied by the unpack that takes it
};

class Frame : public std::enable_shared_from_this<Frame> {
 public:
  Frame(const BlockFn& block, torch::Tensor input, capture::CaptureSession* session)
      : block_(&block), input_(std::move(input)), session_(session), state_(ForwardState::capture(input_)) {}

  std::shared_ptr<Holder> addHolder() {
    auto holder = std::make_shared<Holder>();
    holders_.push_back(holder);
    return holder;
  }

  void storeRecomputed(const at::Tensor& t);
  at::Tensor unpack(Holder& holder);

 private:
  void recompute();

  const BlockFn* block_;
  torch::Tensor input_;
  capture::CaptureSession* session_;
  ForwardState state_;
  std::vector<std::weak_ptr<Holder>> holders_;  // in the order the forward saved them
  size_t next_ = 0;                             // holders filled so far by the running recomputation
  int64_t recomputed_for_task_ = -1;
  std::mutex mutex_;  // backward may unpack from the device threads of several devices
};

enum class Mode { Forward, Recompute };

// The checkpointed block running on this thread, if any.
struct HookScope {
  std::shared_ptr<Frame> frame;
  Mode mode;
};
thread_local const HookScope* t_scope = nullptr;

class ScopeGuard {
 public:
  explicit ScopeGuard(const HookScope& scope) : previous_(std::exchange(t_scope, &scope)) {}
  ~ScopeGuard() { t_scope = previous_; }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  const HookScope* previous_;
};

class ForwardHooks final : public SavedVariableHooks {
 public:
  explicit ForwardHooks(std::shared_ptr<Frame> frame) : frame_(std::move(frame)) {}
  // The holder is registered here, not when the hooks are made: SavedVariable asks for hooks
  // before it decides whether to use them (it saves wrapped numbers as they are).
  void call_pack_hook(const at::Tensor& tensor) override {
    holder_ = frame_->addHolder();
    holder_->sizes = tensor.sizes().vec();
    holder_->dtype = tensor.scalar_type();
    holder_->device = tensor.device();
  }
  at::Tensor call_unpack_hook() override {
    TORCH_INTERNAL_ASSERT(holder_);
    return frame_->unpack(*holder_);
  }

 private:
  std::shared_ptr<Frame> frame_;
  std::shared_ptr<Holder> holder_;
};

class RecomputeHooks final : public SavedVariableHooks {
 public:
  explicit RecomputeHooks(std::shared_ptr<Frame> frame) : frame_(std::move(frame)) {}
  void call_pack_hook(const at::Tensor& tensor) override { frame_->storeRecomputed(tensor); }
  at::Tensor call_unpack_hook() override {
    TORCH_CHECK(false, "checkpoint: the recomputation's own graph is never backpropagated");
  }

 private:
  std::shared_ptr<Frame> frame_;
};

class CheckpointEngine final : public torch::autograd::Engine {
 public:
  std::unique_ptr<SavedVariableHooks> get_default_saved_variable_hooks() override {
    const HookScope* scope = t_scope;
    if (!scope) return nullptr;
    if (scope->mode == Mode::Forward) return std::make_unique<ForwardHooks>(scope->frame);
    return std::make_unique<RecomputeHooks>(scope->frame);
  }
};

torch::autograd::Engine& checkpointEngine() {
  // Never destroyed: like the base engine's, its device threads are never joined.
  static auto* engine = new CheckpointEngine();
  return *engine;
}

void Frame::storeRecomputed(const at::Tensor& t) {
  const size_t index = next_++;
  TORCH_INTERNAL_ASSERT(index < holders_.size());
  if (auto holder = holders_[index].lock()) {  // expired: backward no longer needs that tensor
    TORCH_CHECK(t.sizes().vec() == holder->sizes && t.scalar_type() == holder->dtype && t.device() == holder->device,
                "checkpoint: saved tensor ", index, " was recomputed as ", t.sizes(), " ", t.scalar_type(), " on ",
                t.device(), " but the forward saved ", c10::IntArrayRef(holder->sizes), " ", holder->dtype, " on ",
                holder->device, ": the block must run the same operations both times");
    holder->recomputed = t.detach();
  }
  if (next_ == holders_.size()) throw StopRecomputation{};
}

void Frame::recompute() {
  std::optional<capture::PhaseScope> phase;
  if (session_) phase.emplace(*session_, "recompute");
  ReplayScope replay(state_, input_);
  next_ = 0;
  const HookScope scope{shared_from_this(), Mode::Recompute};
  ScopeGuard guard(scope);
  at::AutoGradMode grad(true);
  try {
    (*block_)(input_.detach().requires_grad_(input_.requires_grad()));
  } catch (const StopRecomputation&) {
  }
  TORCH_CHECK(next_ == holders_.size(), "checkpoint: the recomputed block saved ", next_, " tensors for backward, the forward ",
              holders_.size(), ": the block must run the same operations both times");
}

at::Tensor Frame::unpack(Holder& holder) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!holder.recomputed.defined()) {
    const int64_t task = torch::autograd::get_current_graph_task_id();
    TORCH_CHECK(task < 0 || task != recomputed_for_task_,
                "checkpoint: a saved tensor was unpacked twice in one backward pass");
    recompute();
    recomputed_for_task_ = task;
  }
  return std::exchange(holder.recomputed, torch::Tensor());
}

}  // namespace

void useCheckpointEngine() {
  static std::once_flag once;
  std::call_once(once, [] { torch::autograd::set_default_engine_stub(&checkpointEngine); });
}

torch::Tensor checkpointNonReentrant(const BlockFn& block, const torch::Tensor& input, capture::CaptureSession* session) {
  useCheckpointEngine();
  TORCH_CHECK(!t_scope, "checkpoint: a non-reentrant checkpoint inside another is not supported");
  if (!at::GradMode::is_enabled()) return block(input);  // no graph, nothing saved
  const HookScope scope{std::make_shared<Frame>(block, input, session), Mode::Forward};
  ScopeGuard guard(scope);
  return block(input);
}

}  // namespace sawtooth::workloads
