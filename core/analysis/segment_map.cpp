#include "core/analysis/segment_map.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/analysis/call_sites.h"
#include "core/util/format_bytes.h"

namespace sawtooth {

std::string_view name(BlockKind kind) {
  switch (kind) {
    case BlockKind::Allocated: return "allocated";
    case BlockKind::PendingFree: return "pending free";
    case BlockKind::InactiveSplit: return "inactive split";
    case BlockKind::FreeSegment: return "free";
  }
  return "free";
}

BlockKind blockKind(const SegmentView& segment, const BlockView& block) {
  switch (block.state) {
    case BlockState::ActiveAllocated: return BlockKind::Allocated;
    case BlockState::ActivePendingFree: return BlockKind::PendingFree;
    case BlockState::Inactive: break;
  }
  return segment.blocks.size() > 1 ? BlockKind::InactiveSplit : BlockKind::FreeSegment;
}

std::vector<SegmentGroup> groupSegments(const AllocatorState& state) {
  // Key: private pool last, large before small, then stream.
  using Key = std::tuple<bool, std::pair<int64_t, int64_t>, bool, uint64_t>;
  std::map<Key, SegmentGroup> groups;
  for (size_t i = 0; i < state.segments.size(); ++i) {
    const SegmentView& s = state.segments[i];
    const bool private_pool = s.pool_id != std::pair<int64_t, int64_t>{0, 0};
    SegmentGroup& g = groups[Key{private_pool, s.pool_id, s.small_pool, s.stream}];
    if (g.segments.empty()) {
      g.small_pool = s.small_pool;
      g.stream = s.stream;
      g.pool_id = s.pool_id;
      g.label = private_pool ? "private pool (" + std::to_string(s.pool_id.first) + ", " + std::to_string(s.pool_id.second) + "), " : "";
      g.label += std::string(s.small_pool ? "small pool" : "large pool") + " · " + streamLabel(s.stream);
    }
    g.segments.push_back(i);
    g.reserved += s.total_size;
    g.allocated += s.allocatedBytes();
    g.free_bytes += s.freeBytes();
    g.largest_free_block = std::max(g.largest_free_block, s.largestFreeBlock());
  }
  std::vector<SegmentGroup> out;
  out.reserve(groups.size());
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  return out;
}

SegmentMap segmentMapOf(const Trace& trace, AllocatorState state, int64_t events, const std::optional<Event>& at) {
  SegmentMap map;
  map.events = events;
  map.state = std::move(state);
  map.groups = groupSegments(map.state);

  SiteNamer names(trace.stacks);
  auto addSite = [&](uint32_t stack) {
    if (stack != kNoStack && !map.sites.count(stack)) map.sites.emplace(stack, names.site(stack).label);
  };
  for (const SegmentView& s : map.state.segments) {
    addSite(s.stack);
    for (const BlockView& b : s.blocks) addSite(b.stack);
  }
  for (const BlockView& b : map.state.outside_segments) addSite(b.stack);

  const AllocatorState& st = map.state;
  std::string where = st.position < 0 ? "Before the first allocator event"
                                      : "After allocator event " + std::to_string(st.position) + " of " + std::to_string(events);
  if (st.position >= 0 && at) where += " (" + std::string(name(at->action)) + " " + formatBytes(at->size) + ")";
  map.headline = where + ": " + std::to_string(st.segments.size()) + " segments, reserved " + formatBytes(st.reserved) +
                 ", allocated " + formatBytes(st.allocated_bytes) + " (requested " + formatBytes(st.requested_bytes) +
                 ", rounding waste " + formatBytes(st.internal_waste) + "), free " + formatBytes(st.free_bytes) +
                 ", largest free block " + formatBytes(st.largest_free_block) + ", external fragmentation " +
                 formatBytes(st.external_fragmentation);
  return map;
}

SegmentMap segmentMapAt(const Trace& trace, const AllocatorHistory& history, int64_t position) {
  const auto events = static_cast<int64_t>(history.events().size());
  position = std::clamp<int64_t>(position, -1, events - 1);
  std::optional<Event> at;
  if (position >= 0) at = trace.events.at(history.events()[static_cast<size_t>(position)]);
  SegmentMap map = segmentMapOf(trace, history.stateAfter(position), events, at);
  if (at && at->action == Action::Oom) {
    SiteNamer names(trace.stacks);
    map.oom = explainOom(trace, history, position, names);
  }
  return map;
}

}  // namespace sawtooth
