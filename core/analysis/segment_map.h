#pragma once
// What the segment map draws at one allocator event: the allocator's state, its segments grouped
// by pool and stream, each block's kind as drawn (a free block is an "inactive split" when it is a
// piece of a split segment, "free" when it is the whole cached segment), the call site of every
// stack in the state, a one-line headline, and at an out-of-memory event its explanation.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/analysis/allocator_history.h"
#include "core/analysis/allocator_state.h"
#include "core/analysis/oom_explanation.h"
#include "core/model/trace.h"

namespace sawtooth {

enum class BlockKind : uint8_t { Allocated, PendingFree, InactiveSplit, FreeSegment };
std::string_view name(BlockKind kind);
BlockKind blockKind(const SegmentView& segment, const BlockView& block);

struct SegmentGroup {
  bool small_pool = false;
  uint64_t stream = 0;
  std::pair<int64_t, int64_t> pool_id{0, 0};
  std::string label;             // "large pool · stream 0", "private pool (1, 2) · stream 0x…"
  int64_t reserved = 0;
  int64_t allocated = 0;         // block sizes handed out
  int64_t free_bytes = 0;
  int64_t largest_free_block = 0;
  std::vector<size_t> segments;  // indices into AllocatorState::segments, in address order
};

// Segments grouped by (private pool, small/large, stream): large pools first, then small, then
// private pools; streams in ascending order.
std::vector<SegmentGroup> groupSegments(const AllocatorState& state);

struct SegmentMap {
  AllocatorState state;
  std::vector<SegmentGroup> groups;
  std::unordered_map<uint32_t, std::string> sites;  // the call site of each stack in the state
  std::optional<OomExplanation> oom;                 // at an out-of-memory event
  int64_t events = 0;                                // the device's allocator events
  std::string headline;
};

// The map after the allocator event at `position` (-1: before the first; clamped).
SegmentMap segmentMapAt(const Trace& trace, const AllocatorHistory& history, int64_t position);
// The map of a state already replayed (of a device with `events` allocator events; `at`: the event
// it follows), naming sites from `trace`'s stacks alone: a file too large to read whole
// (summary_moment.h). No out-of-memory explanation (it needs the device's whole history).
SegmentMap segmentMapOf(const Trace& trace, AllocatorState state, int64_t events, const std::optional<Event>& at);

}  // namespace sawtooth
