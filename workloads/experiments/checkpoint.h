#pragma once
// Activation checkpointing for LibTorch, which has no torch.utils.checkpoint: a custom autograd
// Function whose forward runs the block without keeping its activations (only the input is
// saved), and whose backward runs the block again with gradients on — RNG and autocast state as
// they were in forward — and backpropagates through that recomputation.

#include <functional>

#include <torch/torch.h>

namespace sawtooth::capture {
class CaptureSession;
}

namespace sawtooth::workloads {

using BlockFn = std::function<torch::Tensor(const torch::Tensor&)>;

// `block` must outlive the backward pass. The recomputation is marked as phase "recompute"
// when a session is given.
torch::Tensor checkpoint(const BlockFn& block, const torch::Tensor& input, capture::CaptureSession* session);

}  // namespace sawtooth::workloads
