#include "core/analysis/allocator_baseline.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "core/util/keyed_hash.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

constexpr size_t kMaxNotes = 20;

using StartSegment = SegmentProps;

struct Alive {
  int64_t requested = 0;
  BlockState state = BlockState::ActiveAllocated;
  int64_t size = -1;  // -1: not known from the snapshot
  uint32_t stack = kNoStack;
  Category category = Category::Unknown;
};

struct InferredSize {
  int64_t size = 0;
  int64_t size_max = 0;
};

// The size a block of `requested` bytes can have when `room` bytes lie between its start and the
// next block in use (or the segment's end); what is left after it is one free block.
InferredSize inferSize(int64_t requested, int64_t room, bool small, const AllocatorSettings& s) {
  const int64_t rounded = roundSize(requested, s);
  if (room <= rounded || small || s.expandable_segments) return {rounded, rounded};  // every remainder is split off
  const int64_t whole = std::min(room, largestUnsplitBlock(rounded, false, s));
  if (rounded >= s.max_split_size) return {whole, whole};  // oversize blocks are never split: guess the whole room
  // A large-pool free block is always over 1 MiB (a split leaves more than that; frees only merge),
  // so a remainder of at most 1 MiB belongs to the block.
  if (room - rounded <= kSmallSize) return {room, room};
  return {rounded, std::min(whole, room - kSmallSize - kMinBlockSize)};
}

}  // namespace

class AllocatorStartWalk::StartBuilder {
 public:
  StartBuilder(const Trace& trace, int16_t device, const AllocatorSettings& settings)
      : device_(device), settings_(settings) {
    for (const SnapshotSegment& s : trace.segments) {
      if (s.device != device_) continue;
      segments_[s.address] = StartSegment{s.total_size, s.stream, s.pool_id, s.stack, s.small_pool, s.expandable};
      for (const SnapshotBlock& b : s.blocks)
        if (b.state != BlockState::Inactive) alive_[b.address] = Alive{b.requested_size, b.state, b.size, b.stack};
    }
  }

  AllocatorStart finish(const std::map<uint64_t, int64_t>& known_sizes) {
    layOut(known_sizes);
    out_.state.device = device_;
    finishState(out_.state);
    return std::move(out_);
  }

 private:
  void anomaly(std::string text) {
    ++out_.anomalies;
    if (out_.notes.size() < kMaxNotes) out_.notes.push_back(std::move(text));
  }

  bool smallBySize(int64_t size) const { return size == kSmallBuffer && settings_.large_segment_size != kSmallBuffer; }

  std::map<uint64_t, StartSegment>::iterator containing(uint64_t addr) {
    auto it = segments_.upper_bound(addr);
    if (it == segments_.begin()) return segments_.end();
    --it;
    return addr < it->first + static_cast<uint64_t>(it->second.size) ? it : segments_.end();
  }


 public:
  // Walking backwards, each event is undone: what it created did not exist before it.
  void undo(const Event& e, uint64_t index) {
    const uint64_t end = e.addr + static_cast<uint64_t>(e.size);
    switch (e.action) {
      case Action::SegmentAlloc:
        if (auto s = segments_.find(e.addr); s != segments_.end()) segments_.erase(s);
        else anomaly(fmt::format("event {}: segment_alloc of {:#x}, a segment not held later", index, e.addr));
        break;
      case Action::SegmentFree:
        if (containing(e.addr) != segments_.end())
          anomaly(fmt::format("event {}: segment_free of {:#x}, inside a segment held later", index, e.addr));
        else segments_[e.addr] = StartSegment{e.size, e.stream, {0, 0}, e.stack, smallBySize(e.size), false};
        break;
      case Action::SegmentMap: {
        auto s = containing(e.addr);
        if (s == segments_.end() || !s->second.expandable || end > s->first + static_cast<uint64_t>(s->second.size)) {
          anomaly(fmt::format("event {}: segment_map of {:#x}, not mapped later", index, e.addr));
          break;
        }
        const StartSegment whole = s->second;
        const uint64_t seg_end = s->first + static_cast<uint64_t>(whole.size);
        if (e.addr > s->first) s->second.size = static_cast<int64_t>(e.addr - s->first);
        else segments_.erase(s);
        if (seg_end > end) {
          StartSegment right = whole;
          right.size = static_cast<int64_t>(seg_end - end);
          segments_[end] = right;
        }
        break;
      }
      case Action::SegmentUnmap: {
        if (containing(e.addr) != segments_.end()) {
          anomaly(fmt::format("event {}: segment_unmap of {:#x}, mapped later", index, e.addr));
          break;
        }
        StartSegment range{e.size, e.stream, {0, 0}, kNoStack, smallBySize(e.size), true};
        uint64_t start = e.addr;
        auto next = segments_.find(end);
        if (next != segments_.end() && next->second.expandable && next->second.stream == e.stream) {
          range.small_pool = next->second.small_pool;
          range.size = wrappingAdd(range.size, next->second.size);
          segments_.erase(next);
        }
        auto prev = segments_.lower_bound(e.addr);
        if (prev != segments_.begin()) {
          --prev;
          if (prev->second.expandable && prev->second.stream == e.stream &&
              prev->first + static_cast<uint64_t>(prev->second.size) == e.addr) {
            prev->second.size = wrappingAdd(prev->second.size, range.size);
            break;
          }
        }
        segments_[start] = range;
        break;
      }
      case Action::Alloc:
        if (alive_.erase(e.addr) == 0)
          anomaly(fmt::format("event {}: alloc at {:#x}, neither in use at the end nor freed later", index, e.addr));
        break;
      case Action::FreeRequested:
        if (auto a = alive_.find(e.addr); a != alive_.end()) a->second.state = BlockState::ActiveAllocated;
        else alive_[e.addr] = Alive{e.size, BlockState::ActiveAllocated, -1, kNoStack, e.category};
        break;
      case Action::FreeCompleted:
        if (alive_.count(e.addr)) anomaly(fmt::format("event {}: free_completed at {:#x}, in use again later without an alloc", index, e.addr));
        alive_[e.addr] = Alive{e.size, BlockState::ActivePendingFree, -1, kNoStack, e.category};
        break;
      default: break;
    }
  }

 private:
  BlockView aliveView(uint64_t addr, const Alive& a) const {
    BlockView v;
    v.address = addr;
    v.requested_size = a.requested;
    v.state = a.state;
    v.stack = a.stack;
    v.category = a.category;
    return v;
  }

  // Places the blocks in use at the start in their segments; the room between them is free.
  void layOut(const std::map<uint64_t, int64_t>& known_sizes) {
    std::vector<std::pair<uint64_t, Alive>> alive(alive_.begin(), alive_.end());
    std::sort(alive.begin(), alive.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t k = 0;
    for (const auto& [seg_addr, seg] : segments_) {
      const uint64_t seg_end = seg_addr + static_cast<uint64_t>(seg.size);
      for (; k < alive.size() && alive[k].first < seg_addr; ++k) outside(alive[k].first, alive[k].second);
      SegmentView sv = segmentView(seg_addr, seg);
      uint64_t cursor = seg_addr;
      auto gap = [&](uint64_t to) {
        if (to <= cursor) return;
        BlockView free_block;
        free_block.address = cursor;
        free_block.size = free_block.size_max = static_cast<int64_t>(to - cursor);
        sv.blocks.push_back(free_block);
        cursor = to;
      };
      for (; k < alive.size() && alive[k].first < seg_end; ++k) {
        const auto& [addr, a] = alive[k];
        if (addr < cursor) {
          anomaly(fmt::format("block at {:#x} overlaps the block before it", addr));
          outside(addr, a);
          continue;
        }
        gap(addr);
        const uint64_t next = k + 1 < alive.size() && alive[k + 1].first < seg_end ? alive[k + 1].first : seg_end;
        const auto room = static_cast<int64_t>(next - addr);
        BlockView v = aliveView(addr, a);
        if (auto known = known_sizes.find(addr); known != known_sizes.end()) {
          v.size = v.size_max = known->second;
        } else if (a.size >= 0) {
          v.size = v.size_max = a.size;
        } else {
          const InferredSize guess = inferSize(a.requested, room, seg.small_pool, settings_);
          v.size = guess.size;
          v.size_max = guess.size_max;
          v.size_inferred = guess.size_max != guess.size;
          if (v.size_inferred) {
            ++out_.inferred_blocks;
            out_.inferred_bytes_max = wrappingAdd(out_.inferred_bytes_max, guess.size_max - guess.size);
          }
        }
        if (v.size > room || v.size <= 0) {
          anomaly(fmt::format("block at {:#x} of {} bytes does not fit the {} bytes before the next", addr, v.size, room));
          v.size = v.size_max = room;
          v.size_inferred = false;
        }
        sv.blocks.push_back(v);
        cursor = addr + static_cast<uint64_t>(v.size);
      }
      gap(seg_end);
      out_.state.segments.push_back(std::move(sv));
    }
    for (; k < alive.size(); ++k) outside(alive[k].first, alive[k].second);
  }

  void outside(uint64_t addr, const Alive& a) {
    anomaly(fmt::format("block at {:#x} in use at the start lies in no segment", addr));
    BlockView v = aliveView(addr, a);
    v.size = v.size_max = a.size >= 0 ? a.size : roundSize(a.requested, settings_);
    out_.state.outside_segments.push_back(v);
  }

  int16_t device_;
  AllocatorSettings settings_;
  std::map<uint64_t, StartSegment> segments_;
  std::unordered_map<uint64_t, Alive, KeyedHash> alive_;  // addresses from the file: keyed
  AllocatorStart out_;
};

AllocatorStartWalk::AllocatorStartWalk(const Trace& trace, int16_t device, const AllocatorSettings& settings)
    : builder_(std::make_unique<StartBuilder>(trace, device, settings)) {}
AllocatorStartWalk::~AllocatorStartWalk() = default;
AllocatorStartWalk::AllocatorStartWalk(AllocatorStartWalk&&) noexcept = default;
AllocatorStartWalk& AllocatorStartWalk::operator=(AllocatorStartWalk&&) noexcept = default;
void AllocatorStartWalk::undo(const Event& e, uint64_t index) { builder_->undo(e, index); }
AllocatorStart AllocatorStartWalk::finish(const std::map<uint64_t, int64_t>& known_sizes) {
  return builder_->finish(known_sizes);
}

Result<AllocatorStart> allocatorStart(const Trace& trace, int16_t device, const std::vector<uint64_t>& events,
                                      const AllocatorSettings& settings, const std::map<uint64_t, int64_t>& known_sizes) {
  if (!trace.segments_known) {
    const auto& act = trace.events.action();
    const bool any_segment_event = std::any_of(events.begin(), events.end(), [&](uint64_t i) {
      return act[i] == Action::SegmentAlloc || act[i] == Action::SegmentMap;
    });
    if (!any_segment_event)
      return Error{fmt::format("{}: the trace carries no allocator segments (no snapshot segments, no segment "
                               "events), so the allocator's state cannot be replayed",
                               trace.deviceName(device))};
    AllocatorStart empty;  // recorded from the process's start: nothing was held before
    empty.state.device = device;
    finishState(empty.state);
    return empty;
  }
  AllocatorStartWalk walk(trace, device, settings);
  for (auto it = events.rbegin(); it != events.rend(); ++it) walk.undo(trace.events.at(*it), *it);
  return walk.finish(known_sizes);
}

}  // namespace sawtooth
