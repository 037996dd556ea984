#pragma once
// The caching allocator's segments and blocks as a source reported them at one moment: a PyTorch
// snapshot's `segments` (taken when the snapshot was dumped, after its last trace event). The
// replay in core/analysis starts from them to know what was alive and how memory was split
// before the trace began, and checks itself against them at the end.

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/event_store.h"

namespace sawtooth {

// PyTorch's names: a block handed out, one freed by the program whose memory still waits for
// another stream's work (record_stream), and a cached free block.
enum class BlockState : uint8_t { ActiveAllocated, ActivePendingFree, Inactive };
std::string_view name(BlockState state);
std::optional<BlockState> parseBlockState(std::string_view text);

struct SnapshotBlock {
  uint64_t address = 0;
  int64_t size = 0;            // the allocator's block size (rounded, split or whole)
  int64_t requested_size = 0;  // what the program asked for (stale in inactive blocks, as PyTorch keeps it)
  BlockState state = BlockState::Inactive;
  uint32_t stack = kNoStack;   // where it was allocated
};

struct SnapshotSegment {
  DeviceId device = 0;
  uint64_t address = 0;
  int64_t total_size = 0;
  uint64_t stream = 0;
  bool small_pool = false;     // segment_type "small" (blocks of at most 1 MiB)
  bool expandable = false;     // one mapped range of an expandable segment
  std::pair<int64_t, int64_t> pool_id{0, 0};  // a private pool (CUDA graphs, MemPool); {0, 0} otherwise
  uint32_t stack = kNoStack;   // where the segment was allocated
  std::vector<SnapshotBlock> blocks;  // in address order, covering the segment
};

}  // namespace sawtooth
