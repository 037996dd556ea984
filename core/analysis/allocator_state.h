#pragma once
// The caching allocator's state on one device at one moment, as a view draws it: segments in
// address order, each with its blocks, and the figures derived from them (what is allocated as
// PyTorch counts it, what is free, the largest free block per pool and stream, fragmentation).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/allocator_segments.h"
#include "core/model/trace.h"

namespace sawtooth {

inline constexpr uint64_t kBeforeTrace = UINT64_MAX;  // an allocation made before the trace began

struct BlockView {
  uint64_t address = 0;
  int64_t size = 0;             // the block as the allocator cut it
  int64_t requested_size = 0;   // what the program asked for; 0 in inactive blocks
  BlockState state = BlockState::Inactive;
  uint32_t stack = kNoStack;    // where it was allocated
  uint64_t alloc_event = kBeforeTrace;  // global event index of its allocation
  Category category = Category::Unknown;
  // The trace never says a block's size; for one allocated before the trace began and freed
  // in it, the size is inferred from the layout (size_min..size_max bound it).
  bool size_inferred = false;
  int64_t size_max = 0;

  bool active() const { return state != BlockState::Inactive; }
};

// What a segment is, apart from its blocks.
struct SegmentProps {
  int64_t size = 0;
  uint64_t stream = 0;
  std::pair<int64_t, int64_t> pool_id{0, 0};
  uint32_t stack = kNoStack;
  bool small_pool = false;
  bool expandable = false;  // a mapped range of an expandable segment
};

struct SegmentView {
  uint64_t address = 0;
  int64_t total_size = 0;
  uint64_t stream = 0;
  bool small_pool = false;
  bool expandable = false;      // a mapped range of an expandable segment
  std::pair<int64_t, int64_t> pool_id{0, 0};
  uint32_t stack = kNoStack;
  std::vector<BlockView> blocks;  // in address order, covering the segment

  int64_t allocatedBytes() const;  // blocks handed out (PyTorch's allocated_size)
  int64_t activeBytes() const;     // handed out or waiting for another stream
  int64_t requestedBytes() const;  // requested sizes of the active blocks
  int64_t freeBytes() const;
  int64_t largestFreeBlock() const;
};

// Free memory of one pool on one stream: a request can only use blocks of its own pool and stream.
struct PoolFree {
  bool small_pool = false;
  uint64_t stream = 0;
  int64_t reserved = 0;
  int64_t free_bytes = 0;
  int64_t largest_free_block = 0;
  size_t segments = 0;
};

struct AllocatorState {
  int16_t device = 0;
  int64_t position = -1;           // after this allocator event of the device; -1: before the first
  uint64_t event = kBeforeTrace;   // its global index
  std::vector<SegmentView> segments;
  std::vector<BlockView> outside_segments;  // allocations the trace put in no known segment

  // Derived (finishState fills them).
  int64_t reserved = 0;
  int64_t allocated_bytes = 0;     // block sizes of handed-out blocks: torch.cuda.memory_allocated()
  int64_t active_bytes = 0;
  int64_t requested_bytes = 0;     // requested sizes of active blocks: what MemoryViz shows
  int64_t free_bytes = 0;          // cached, unused
  int64_t largest_free_block = 0;
  int64_t external_fragmentation = 0;  // free bytes outside the largest free block
  int64_t internal_waste = 0;      // rounding and unsplit remainders of handed-out blocks
  std::vector<PoolFree> pools;     // by (pool, stream)
};

// "stream 0", or a CUDA stream's handle in hex ("stream 0x55d14c3e1a40").
std::string streamLabel(uint64_t stream);
// A segment without its blocks yet.
SegmentView segmentView(uint64_t address, const SegmentProps& props);
// Fills the derived figures of `state` from its segments.
void finishState(AllocatorState& state);

}  // namespace sawtooth
