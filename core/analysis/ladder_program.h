#pragma once
// A predicted step: the allocations and frees a rung of the ladder would make, in order, each
// block with what it is (a recorded category, or what the rung adds: weight casts, recomputed
// activations, ...). Its peak is found by the sweep the measured run's peak is found by, so the
// identity rung reproduces the measurement exactly.

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/analysis/ladder_input.h"

namespace sawtooth {

// The recorded categories (core/model/action.h), then what rungs add.
enum class BlockRole : uint8_t {
  Unknown = 0,
  Parameter = 1,
  Gradient = 2,
  OptimizerState = 3,
  Input = 4,
  Activation = 5,
  Temporary = 6,
  AutogradDetail = 7,
  WeightCast = 8,         // autocast's low-precision copy of a weight
  LowPrecisionGrad = 9,   // a weight's gradient in bf16/fp16 before its cast to fp32
  InputCast = 10,         // autocast's copy of the input the first layer saves
  Recomputed = 11,        // activations checkpointing brings back in backward
  RngState = 12,          // the random-number state a checkpoint keeps to replay its block
  GatheredParameter = 13, // full sharding: a block's parameters gathered for its forward/backward
  CollectiveBuffer = 14,  // gradients on their way to their owners (reduce-scatter)
  UpCast = 15,            // autocast's 4-byte copy of a float32-list op's 2-byte input, while the op runs
};
inline constexpr int kBlockRoleCount = 16;
std::string_view name(BlockRole kind);
inline BlockRole roleOf(Category c) { return static_cast<BlockRole>(c); }

class MemoryProgram {
 public:
  struct Block {
    int64_t bytes = 0;
    BlockRole kind = BlockRole::Unknown;
    bool batch_scaled = false;  // grows and shrinks with the batch (for fitting a batch to a device)
  };
  struct Op {
    uint32_t block = 0;
    bool alloc = true;
  };

  // Alive from the start (parameters, what the run began with).
  uint32_t persistent(int64_t bytes, BlockRole kind, bool batch_scaled = false);
  uint32_t alloc(int64_t bytes, BlockRole kind, bool batch_scaled = false);
  void free(uint32_t block);

  const std::vector<Block>& blocks() const { return blocks_; }
  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<uint32_t>& persistentBlocks() const { return persistent_; }

 private:
  std::vector<Block> blocks_;
  std::vector<Op> ops_;
  std::vector<uint32_t> persistent_;
};

struct ProgramPeak {
  int64_t bytes = 0;         // the sum of the requests alive at the peak (the trace's allocated series)
  int64_t block_bytes = 0;   // the same in caching-allocator blocks (max_memory_allocated); = bytes on the CPU
  size_t op = 0;             // where the block peak is first reached (ops().size(): at the start)
  std::array<int64_t, kBlockRoleCount> by_kind{};  // block bytes alive there, by kind
};

// Blocks round as the input's device rounds them (the caching allocator's sizes on CUDA);
// `batch_scale` multiplies the batch-scaled blocks (1: as built).
ProgramPeak programPeak(const MemoryProgram& program, const LadderInput& input, double batch_scale = 1.0);

}  // namespace sawtooth
