#pragma once
// Activation checkpointing for LibTorch, which has no torch.utils.checkpoint. Both of PyTorch's
// forms, with the RNG and autocast state of the forward restored for the recomputation:
//
// - reentrant (use_reentrant=True): a custom autograd Function whose forward runs the block
//   without building its graph (only the input is saved), and whose backward runs the whole
//   block again with gradients on and backpropagates through that recomputation;
// - non-reentrant (use_reentrant=False, the seed's form): the block's forward builds its graph as
//   usual but keeps none of the tensors that graph saves; the first time backward needs one of
//   them the block is run again, keeping exactly the tensors the graph saved, and stops as soon
//   as the last of them exists (checkpoint_non_reentrant.cpp says how).

#include <functional>

#include <torch/torch.h>

namespace sawtooth::capture {
class CaptureSession;
}

namespace sawtooth::workloads {

using BlockFn = std::function<torch::Tensor(const torch::Tensor&)>;

// `block` must outlive the backward pass. A recomputation is marked as phase "recompute" when a
// session is given.
torch::Tensor checkpointReentrant(const BlockFn& block, const torch::Tensor& input, capture::CaptureSession* session);
// The block must not checkpoint inside itself (nesting is refused with an error).
torch::Tensor checkpointNonReentrant(const BlockFn& block, const torch::Tensor& input, capture::CaptureSession* session);

// Makes the process's default autograd engine the one non-reentrant checkpointing needs (once;
// call it before the first backward pass so that one engine and one set of device threads run
// them all — checkpointNonReentrant calls it too).
void useCheckpointEngine();

}  // namespace sawtooth::workloads
