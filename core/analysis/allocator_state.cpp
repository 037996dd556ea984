#include "core/analysis/allocator_state.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/util/wrapping.h"

namespace sawtooth {

int64_t SegmentView::allocatedBytes() const {
  int64_t sum = 0;
  for (const BlockView& b : blocks)
    if (b.state == BlockState::ActiveAllocated) sum = wrappingAdd(sum, b.size);
  return sum;
}

int64_t SegmentView::activeBytes() const {
  int64_t sum = 0;
  for (const BlockView& b : blocks)
    if (b.active()) sum = wrappingAdd(sum, b.size);
  return sum;
}

int64_t SegmentView::requestedBytes() const {
  int64_t sum = 0;
  for (const BlockView& b : blocks)
    if (b.active()) sum = wrappingAdd(sum, b.requested_size);
  return sum;
}

int64_t SegmentView::freeBytes() const {
  int64_t sum = 0;
  for (const BlockView& b : blocks)
    if (!b.active()) sum = wrappingAdd(sum, b.size);
  return sum;
}

int64_t SegmentView::largestFreeBlock() const {
  int64_t largest = 0;
  for (const BlockView& b : blocks)
    if (!b.active()) largest = std::max(largest, b.size);
  return largest;
}

std::string streamLabel(uint64_t stream) { return stream == 0 ? "stream 0" : fmt::format("stream {:#x}", stream); }

SegmentView segmentView(uint64_t address, const SegmentProps& p) {
  SegmentView v;
  v.address = address;
  v.total_size = p.size;
  v.stream = p.stream;
  v.small_pool = p.small_pool;
  v.expandable = p.expandable;
  v.pool_id = p.pool_id;
  v.stack = p.stack;
  return v;
}

void finishState(AllocatorState& s) {
  s.reserved = s.allocated_bytes = s.active_bytes = s.requested_bytes = s.free_bytes = 0;
  s.largest_free_block = s.internal_waste = 0;
  std::map<std::pair<bool, uint64_t>, PoolFree> pools;
  auto count = [&](const BlockView& b) {
    if (b.state == BlockState::ActiveAllocated) {
      s.allocated_bytes = wrappingAdd(s.allocated_bytes, b.size);
      s.internal_waste = wrappingAdd(s.internal_waste, wrappingSub(b.size, b.requested_size));
    }
    if (b.active()) {
      s.active_bytes = wrappingAdd(s.active_bytes, b.size);
      s.requested_bytes = wrappingAdd(s.requested_bytes, b.requested_size);
    }
  };
  for (const SegmentView& seg : s.segments) {
    s.reserved = wrappingAdd(s.reserved, seg.total_size);
    PoolFree& pool = pools[{seg.small_pool, seg.stream}];
    pool.small_pool = seg.small_pool;
    pool.stream = seg.stream;
    pool.reserved = wrappingAdd(pool.reserved, seg.total_size);
    ++pool.segments;
    for (const BlockView& b : seg.blocks) {
      count(b);
      if (b.active()) continue;
      s.free_bytes = wrappingAdd(s.free_bytes, b.size);
      pool.free_bytes = wrappingAdd(pool.free_bytes, b.size);
      pool.largest_free_block = std::max(pool.largest_free_block, b.size);
      s.largest_free_block = std::max(s.largest_free_block, b.size);
    }
  }
  for (const BlockView& b : s.outside_segments) count(b);
  s.external_fragmentation = wrappingSub(s.free_bytes, s.largest_free_block);
  s.pools.clear();
  for (auto& [key, pool] : pools) s.pools.push_back(pool);
}

}  // namespace sawtooth
