#pragma once
// Each rung of the ladder as a rewrite of the recorded step (core/analysis/ladder_input.h) into the
// allocations and frees that rung would make (core/analysis/ladder_program.h), with the reasoning
// in words: which bytes change and why. The rules, each checked against the built-in workloads'
// measured rungs (tests/tools/check_ladder.py, bench/results):
//
// - batch: a block scales with the batch when it is born in forward (or recompute), or in
//   backward with a size forward also made (the gradient of an activation); parameters, their
//   gradients, optimizer state, blocks of 512 bytes or less and blocks other than activations and
//   inputs made in the step but never freed in the run (a library's workspace made on first use)
//   do not.
// - accumulation over k: each forward + backward runs k times at 1/k of the batch; the first
//   micro-batch makes the gradients, the later ones make each gradient again and add it in place
//   (alive until the backward step that made it ends).
// - activation checkpointing of the repeated blocks: a checkpointed block keeps only its input
//   (and, on the CPU, the RNG state); what it saved for backward is freed as soon as the next op
//   has run, and made again when backward reaches the block (after the next block's backward has
//   freed the block's output and everything born after it) — non-reentrant up to the last saved
//   tensor (PyTorch's early stop), reentrant the whole block, whose output it then holds until the
//   block's backward ends. A block that writes a cache (transformers' KV cache) writes a recomputed
//   entry whose graph keeps what the block saved before the write to the end of backward.
// - autocast (bf16/fp16): batch-scaled blocks become 2-byte; each weight gets a 2-byte copy in
//   forward, kept until its gradient is made (not kept when its layer's gradient comes after every
//   saved activation is gone: the first layer, whose input needs no gradient); the layer's backward
//   step makes the 2-byte gradient, and the cast's own backward step, after the layer's has ended
//   (released the weight's copy, freed its temporaries), the fp32 gradient kept; the first layer's
//   input is kept as a 2-byte copy until that layer's backward step ends.
//   Parameters, gradients and optimizer state stay fp32. Type promotion keeps 4-byte what forward
//   makes before the first repeated block outside nn.Linear / nn.Conv code (the embedding reads fp32
//   weights) and, when the first block's input is so, the residual stream: the blocks of that size
//   made in a repeated block's own forward (its shallowest code), and their gradients.
// - sharding over N: ZeRO-1 divides optimizer state and the optimizer's working memory by N;
//   ZeRO-2 also keeps 1/N of each gradient once it is made (the whole gradient exists until it is
//   reduce-scattered); full sharding also divides the parameters and gathers one repeated block's
//   parameters at a time, the next one prefetched.

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/ladder_input.h"
#include "core/analysis/ladder_program.h"

namespace sawtooth {

struct RungProgram {
  bool applicable = true;
  std::string why_not;  // when not applicable: what the recording lacks or already does
  MemoryProgram program;
  std::vector<std::string> reasoning;
  // Forward work added per micro-step, as a fraction of the forward (checkpointing).
  double recompute_fraction = 0;
  std::string recompute_source;
  // What the recording cannot settle, as a range around the predicted peak: the peak of the same rung
  // with the uncertain blocks taken the other way (autocast: the ops the stacks do not name kept
  // fp32), and bytes the peak may be lower or higher by (one recomputed tensor, a library's
  // workspace, a cache's concatenation). range_why says which, in words.
  // Autocast: the bytes its casts read and write in one forward + backward (each weight's 2-byte copy
  // made from the fp32 weight, its 2-byte gradient cast back to fp32, the input's copy: 3 bytes an
  // element each), and the fp32 gradients one backward makes (what a loss scaler reads and writes
  // once a step to unscale them and look for infs).
  int64_t cast_traffic = 0;
  int64_t gradient_bytes = 0;
  std::optional<MemoryProgram> upper_program;
  int64_t may_be_lower_by = 0;
  int64_t may_be_higher_by = 0;
  std::string range_why;
};

enum class CheckpointForm : uint8_t { NonReentrant, Reentrant };
enum class Sharding : uint8_t { Zero1, Zero2, Full };
enum class LowPrecision : uint8_t { BFloat16, Float16 };

// The bytes of the CPU generator's state a checkpoint stashes (torch.get_rng_state(): mt19937's
// state as a uint8 tensor); CUDA states are kept in host memory, so a GPU pays nothing on the device.
inline constexpr int64_t kCpuRngStateBytes = 5056;

RungProgram identityRung(const LadderInput& in);
// micro_batches k: the batch divided by k; accumulate: k micro-batches per step (the same global
// batch), otherwise one (a smaller batch).
RungProgram batchRung(const LadderInput& in, int micro_batches, bool accumulate);
RungProgram checkpointRung(const LadderInput& in, int every, CheckpointForm form);
RungProgram autocastRung(const LadderInput& in, LowPrecision dtype);
RungProgram shardingRung(const LadderInput& in, Sharding kind, int devices);

// The gradient bytes one backward makes, every parameter's once (the largest over the micro-steps),
// or the bytes of the parameters alive from the start when no backward made any: what a step's
// collectives move.
int64_t gradientBytesOfABackward(const LadderInput& in);

// Whether a block grows and shrinks with the batch (the rule above).
std::vector<bool> batchScaledBlocks(const LadderInput& in);

}  // namespace sawtooth
