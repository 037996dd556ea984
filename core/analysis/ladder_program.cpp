#include "core/analysis/ladder_program.h"

#include <cmath>

namespace sawtooth {

std::string_view name(BlockRole kind) {
  switch (kind) {
    case BlockRole::WeightCast: return "weight casts";
    case BlockRole::LowPrecisionGrad: return "low-precision gradients";
    case BlockRole::InputCast: return "input casts";
    case BlockRole::UpCast: return "fp32 copies of 2-byte inputs";
    case BlockRole::Recomputed: return "recomputed activations";
    case BlockRole::RngState: return "checkpoint RNG states";
    case BlockRole::GatheredParameter: return "gathered parameters";
    case BlockRole::CollectiveBuffer: return "collective buffers";
    default: return name(static_cast<Category>(kind));
  }
}

uint32_t MemoryProgram::persistent(int64_t bytes, BlockRole kind, bool batch_scaled) {
  const auto id = static_cast<uint32_t>(blocks_.size());
  blocks_.push_back(Block{bytes, kind, batch_scaled});
  persistent_.push_back(id);
  return id;
}

uint32_t MemoryProgram::alloc(int64_t bytes, BlockRole kind, bool batch_scaled) {
  const auto id = static_cast<uint32_t>(blocks_.size());
  blocks_.push_back(Block{bytes, kind, batch_scaled});
  ops_.push_back(Op{id, true});
  return id;
}

void MemoryProgram::free(uint32_t block) { ops_.push_back(Op{block, false}); }

namespace {

template <typename Round>
ProgramPeak sweep(const MemoryProgram& program, Round round, double batch_scale) {
  const auto& blocks = program.blocks();
  auto sized = [&](const MemoryProgram::Block& b) {
    if (!b.batch_scaled || batch_scale == 1.0) return b.bytes;
    return static_cast<int64_t>(std::ceil(static_cast<double>(b.bytes) * batch_scale));
  };
  int64_t bytes = 0, block_bytes = 0;
  for (uint32_t id : program.persistentBlocks()) {
    bytes += sized(blocks[id]);
    block_bytes += round(sized(blocks[id]));
  }
  ProgramPeak peak;
  peak.bytes = bytes;
  peak.block_bytes = block_bytes;
  peak.op = program.ops().size();
  const auto& ops = program.ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    const int64_t b = sized(blocks[ops[i].block]);
    const int sign = ops[i].alloc ? 1 : -1;
    bytes += sign * b;
    block_bytes += sign * round(b);
    peak.bytes = std::max(peak.bytes, bytes);
    if (block_bytes > peak.block_bytes) {
      peak.block_bytes = block_bytes;
      peak.op = i;
    }
  }
  // What is alive at the block peak, by kind.
  std::vector<bool> alive(blocks.size(), false);
  for (uint32_t id : program.persistentBlocks()) alive[id] = true;
  if (peak.op < ops.size())
    for (size_t i = 0; i <= peak.op; ++i) alive[ops[i].block] = ops[i].alloc;
  for (size_t id = 0; id < blocks.size(); ++id)
    if (alive[id]) peak.by_kind[static_cast<size_t>(blocks[id].kind)] += round(sized(blocks[id]));
  return peak;
}

}  // namespace

ProgramPeak programPeak(const MemoryProgram& program, const LadderInput& input, double batch_scale) {
  return sweep(program, [&](int64_t b) { return input.roundedBytes(b); }, batch_scale);
}

}  // namespace sawtooth
