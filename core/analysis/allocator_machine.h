#pragma once
// The replay's working state for one device: segments and blocks in ordered maps, changed event
// by event by the caching allocator's own rules (an alloc takes the free block at its address and
// splits it or not; a free merges with free neighbours of the same segment; map and unmap grow
// and cut expandable segments), with running totals for the derived series.
//
// The trace does not say everything: blocks allocated before it began were sized from the layout
// (AllocatorState::size_inferred); when an event shows where such a block really ends, the machine
// resizes it and remembers the size (resolutions()) so the replay can run again with it. Whatever
// the events contradict is counted, described (first few) and worked around, never fatal.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/allocator_rules.h"
#include "core/analysis/allocator_state.h"
#include "core/model/event_store.h"

namespace sawtooth {

class AllocatorMachine {
 public:
  explicit AllocatorMachine(AllocatorSettings settings) : settings_(settings) {}

  // Loads a state (the start of the trace, or a checkpoint).
  void reset(const AllocatorState& state);
  // Applies one allocator event; `index` is its global event index.
  void apply(const Event& e, uint64_t index);
  // The state now, with its derived figures.
  AllocatorState state(int16_t device, int64_t position, uint64_t event) const;

  int64_t reserved() const { return reserved_; }
  int64_t allocatedBytes() const { return allocated_; }           // PyTorch's allocated_bytes
  int64_t internalWaste() const { return allocated_ - allocated_requested_; }
  int64_t freeBytes() const { return free_; }
  int64_t largestFreeBlock() const;
  // The fragmentation figures now (allocator_history.h's series; the summaries keep the same).
  struct Fragmentation {
    int64_t reserved_minus_allocated = 0;
    int64_t external = 0;  // free bytes outside the largest free block
    int64_t largest_free = 0;
  };
  Fragmentation fragmentation() const;
  struct PoolKey {
    bool small_pool = false;
    uint64_t stream = 0;
    bool operator==(const PoolKey&) const = default;
  };
  // Every pool and stream that has held a segment, in the order they first appeared (stable).
  size_t poolCount() const { return groups_.size(); }
  PoolKey poolKey(size_t i) const { return groups_[i].key; }
  int64_t poolLargestFree(size_t i) const;

  // Sizes of blocks from before the trace that the events pinned down: block address -> size.
  const std::map<uint64_t, int64_t>& resolutions() const { return resolutions_; }
  size_t anomalies() const { return anomalies_; }
  const std::vector<std::string>& anomalyNotes() const { return notes_; }

 private:
  struct Block {
    int64_t size = 0;
    int64_t requested = 0;
    uint64_t segment = 0;  // start address of its segment
    uint64_t stream = 0;
    uint64_t alloc_event = kBeforeTrace;
    int64_t size_max = 0;
    uint32_t stack = kNoStack;
    BlockState state = BlockState::Inactive;
    Category category = Category::Unknown;
    bool small = false;
    bool inferred = false;
  };
  using Segment = SegmentProps;
  struct Group {
    PoolKey key;
    std::map<int64_t, int64_t> free_sizes;  // size -> count of free blocks of that size
  };
  using Blocks = std::map<uint64_t, Block>;
  using Segments = std::map<uint64_t, Segment>;

  void anomaly(std::string text);
  Group& group(bool small, uint64_t stream);
  void addFree(uint64_t addr, const Block& b);
  void removeFree(uint64_t addr, const Block& b);
  void countActive(const Block& b, int sign);
  void insertBlock(uint64_t addr, const Block& b);
  void eraseBlock(Blocks::iterator it);
  Segments::iterator segmentContaining(uint64_t addr);
  Blocks::iterator blockContaining(uint64_t addr);
  Blocks::iterator mergeFree(Blocks::iterator it);
  void insertSegment(uint64_t addr, const Segment& segment);  // with one free block covering it
  void addSegment(uint64_t addr, int64_t size, uint64_t stream, uint32_t stack);
  void freeSegment(uint64_t addr, int64_t size);
  void mapRange(uint64_t addr, int64_t size, uint64_t stream, uint32_t stack);
  void unmapRange(uint64_t addr, int64_t size);
  void joinSegments(Segments::iterator left);
  void setPool(Segments::iterator seg, bool small);
  bool resizeInferred(Blocks::iterator it, uint64_t new_end);
  void alloc(const Event& e, uint64_t index);
  void freeRequested(uint64_t addr);
  void freeCompleted(uint64_t addr);
  bool smallBySize(int64_t segment_size) const;

  AllocatorSettings settings_;
  Blocks blocks_;
  Segments segments_;
  Blocks outside_;  // allocations in no known segment
  std::vector<Group> groups_;
  int64_t reserved_ = 0, allocated_ = 0, allocated_requested_ = 0, free_ = 0;
  std::map<uint64_t, int64_t> resolutions_;
  size_t anomalies_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace sawtooth
