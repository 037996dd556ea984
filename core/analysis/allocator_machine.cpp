#include "core/analysis/allocator_machine.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

constexpr size_t kMaxNotes = 20;

uint64_t endOf(uint64_t addr, int64_t size) { return addr + static_cast<uint64_t>(size); }

}  // namespace

void AllocatorMachine::anomaly(std::string text) {
  ++anomalies_;
  if (notes_.size() < kMaxNotes) notes_.push_back(std::move(text));
}

bool AllocatorMachine::smallBySize(int64_t segment_size) const {
  // Small-pool segments (and expandable small pages) are kSmallBuffer; large ones are
  // large_segment_size or at least 10 MiB. Only a 2 MiB large_segment_size makes this ambiguous;
  // the first allocation in the segment settles it (setPool).
  return segment_size == kSmallBuffer && settings_.large_segment_size != kSmallBuffer;
}

AllocatorMachine::Group& AllocatorMachine::group(bool small, uint64_t stream) {
  for (Group& g : groups_)
    if (g.key.small_pool == small && g.key.stream == stream) return g;
  groups_.push_back(Group{{small, stream}, {}});
  return groups_.back();
}

void AllocatorMachine::addFree(uint64_t, const Block& b) {
  free_ = wrappingAdd(free_, b.size);
  ++group(b.small, b.stream).free_sizes[b.size];
}

void AllocatorMachine::removeFree(uint64_t, const Block& b) {
  free_ = wrappingSub(free_, b.size);
  auto& sizes = group(b.small, b.stream).free_sizes;
  if (auto it = sizes.find(b.size); it != sizes.end() && --it->second == 0) sizes.erase(it);
}

void AllocatorMachine::countActive(const Block& b, int sign) {
  if (b.state != BlockState::ActiveAllocated) return;
  allocated_ = wrappingAdd(allocated_, wrappingMul(sign, b.size));
  allocated_requested_ = wrappingAdd(allocated_requested_, wrappingMul(sign, b.requested));
}

void AllocatorMachine::insertBlock(uint64_t addr, const Block& b) {
  auto [it, added] = blocks_.insert_or_assign(addr, b);
  (void)it;
  (void)added;
  if (b.state == BlockState::Inactive) addFree(addr, b);
  else countActive(b, +1);
}

void AllocatorMachine::eraseBlock(Blocks::iterator it) {
  if (it->second.state == BlockState::Inactive) removeFree(it->first, it->second);
  else countActive(it->second, -1);
  blocks_.erase(it);
}

int64_t AllocatorMachine::largestFreeBlock() const {
  int64_t largest = 0;
  for (const Group& g : groups_)
    if (!g.free_sizes.empty()) largest = std::max(largest, g.free_sizes.rbegin()->first);
  return largest;
}

AllocatorMachine::Fragmentation AllocatorMachine::fragmentation() const {
  const int64_t largest = largestFreeBlock();
  return {wrappingSub(reserved_, allocated_), wrappingSub(free_, largest), largest};
}

int64_t AllocatorMachine::poolLargestFree(size_t i) const {
  const auto& sizes = groups_[i].free_sizes;
  return sizes.empty() ? 0 : sizes.rbegin()->first;
}

AllocatorMachine::Segments::iterator AllocatorMachine::segmentContaining(uint64_t addr) {
  auto it = segments_.upper_bound(addr);
  if (it == segments_.begin()) return segments_.end();
  --it;
  return addr < endOf(it->first, it->second.size) ? it : segments_.end();
}

AllocatorMachine::Blocks::iterator AllocatorMachine::blockContaining(uint64_t addr) {
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin()) return blocks_.end();
  --it;
  return addr < endOf(it->first, it->second.size) ? it : blocks_.end();
}

// Merges the free block at `it` with free neighbours of its segment; returns the merged block.
// The block freed last keeps its requested size, as PyTorch's try_merge_blocks keeps the
// destination's.
AllocatorMachine::Blocks::iterator AllocatorMachine::mergeFree(Blocks::iterator it) {
  const int64_t requested = it->second.requested;
  if (auto next = std::next(it); next != blocks_.end() && next->second.segment == it->second.segment &&
                                 next->second.state == BlockState::Inactive &&
                                 next->first == endOf(it->first, it->second.size)) {
    Block grown = it->second;
    grown.size = wrappingAdd(grown.size, next->second.size);
    const uint64_t addr = it->first;
    eraseBlock(next);
    eraseBlock(it);
    insertBlock(addr, grown);
    it = blocks_.find(addr);
  }
  if (it != blocks_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.segment == it->second.segment && prev->second.state == BlockState::Inactive &&
        endOf(prev->first, prev->second.size) == it->first) {
      Block grown = prev->second;
      grown.size = wrappingAdd(grown.size, it->second.size);
      grown.requested = requested;
      const uint64_t addr = prev->first;
      eraseBlock(it);
      eraseBlock(prev);
      insertBlock(addr, grown);
      it = blocks_.find(addr);
    }
  }
  return it;
}

void AllocatorMachine::reset(const AllocatorState& state) {
  blocks_.clear();
  segments_.clear();
  outside_.clear();
  groups_.clear();
  reserved_ = allocated_ = allocated_requested_ = free_ = 0;
  for (const SegmentView& s : state.segments) {
    segments_.emplace_hint(segments_.end(), s.address,
                           Segment{s.total_size, s.stream, s.pool_id, s.stack, s.small_pool, s.expandable});
    reserved_ = wrappingAdd(reserved_, s.total_size);
    for (const BlockView& b : s.blocks) {
      Block mb{b.size, b.requested_size, s.address, s.stream, b.alloc_event, b.size_max, b.stack, b.state, b.category,
               s.small_pool, b.size_inferred};
      blocks_.emplace_hint(blocks_.end(), b.address, mb);
      if (mb.state == BlockState::Inactive) addFree(b.address, mb);
      else countActive(mb, +1);
    }
  }
  for (const BlockView& b : state.outside_segments) {
    Block mb{b.size, b.requested_size, 0, 0, b.alloc_event, b.size, b.stack, b.state, b.category, false, false};
    outside_.emplace(b.address, mb);
    countActive(mb, +1);
  }
}

AllocatorState AllocatorMachine::state(int16_t device, int64_t position, uint64_t event) const {
  AllocatorState out;
  out.device = device;
  out.position = position;
  out.event = event;
  out.segments.reserve(segments_.size());
  auto view = [](uint64_t addr, const Block& b) {
    BlockView v;
    v.address = addr;
    v.size = b.size;
    v.requested_size = b.state == BlockState::Inactive ? 0 : b.requested;
    v.state = b.state;
    v.stack = b.stack;
    v.alloc_event = b.alloc_event;
    v.category = b.category;
    v.size_inferred = b.inferred;
    v.size_max = b.inferred ? b.size_max : b.size;
    return v;
  };
  auto block = blocks_.begin();
  for (const auto& [addr, seg] : segments_) {
    SegmentView sv = segmentView(addr, seg);
    const uint64_t end = endOf(addr, seg.size);
    block = blocks_.lower_bound(addr);
    for (; block != blocks_.end() && block->first < end; ++block) sv.blocks.push_back(view(block->first, block->second));
    out.segments.push_back(std::move(sv));
  }
  for (const auto& [addr, b] : outside_) out.outside_segments.push_back(view(addr, b));
  finishState(out);
  return out;
}

void AllocatorMachine::apply(const Event& e, uint64_t index) {
  switch (e.action) {
    case Action::SegmentAlloc: addSegment(e.addr, e.size, e.stream, e.stack); break;
    case Action::SegmentMap: mapRange(e.addr, e.size, e.stream, e.stack); break;
    case Action::SegmentFree: freeSegment(e.addr, e.size); break;
    case Action::SegmentUnmap: unmapRange(e.addr, e.size); break;
    case Action::Alloc: alloc(e, index); break;
    case Action::FreeRequested: freeRequested(e.addr); break;
    case Action::FreeCompleted: freeCompleted(e.addr); break;
    default: break;  // oom, snapshot, samples change nothing
  }
}

void AllocatorMachine::insertSegment(uint64_t addr, const Segment& segment) {
  segments_.emplace(addr, segment);
  reserved_ = wrappingAdd(reserved_, segment.size);
  Block b;
  b.size = b.size_max = segment.size;
  b.segment = addr;
  b.stream = segment.stream;
  b.small = segment.small_pool;
  insertBlock(addr, b);
}

void AllocatorMachine::addSegment(uint64_t addr, int64_t size, uint64_t stream, uint32_t stack) {
  if (size <= 0) return anomaly(fmt::format("segment of {} bytes at {:#x}", size, addr));
  const uint64_t end = endOf(addr, size);
  auto after = segments_.lower_bound(addr);
  if ((after != segments_.end() && after->first < end) || segmentContaining(addr) != segments_.end())
    return anomaly(fmt::format("segment at {:#x} overlaps one already held", addr));
  insertSegment(addr, Segment{size, stream, {0, 0}, stack, smallBySize(size), false});
}

void AllocatorMachine::freeSegment(uint64_t addr, int64_t size) {
  auto seg = segments_.find(addr);
  if (seg == segments_.end()) return anomaly(fmt::format("segment_free of {:#x}, a segment not held", addr));
  if (seg->second.size != size)
    anomaly(fmt::format("segment_free of {:#x}: {} bytes, the segment has {}", addr, size, seg->second.size));
  const uint64_t end = endOf(addr, seg->second.size);
  auto b = blocks_.lower_bound(addr);
  if (b != blocks_.end() && (b->second.state != BlockState::Inactive || endOf(b->first, b->second.size) != end))
    anomaly(fmt::format("segment_free of {:#x} while blocks in it are in use", addr));
  while (b != blocks_.end() && b->first < end) eraseBlock(b++);
  reserved_ = wrappingSub(reserved_, seg->second.size);
  segments_.erase(seg);
}

void AllocatorMachine::setPool(Segments::iterator seg, bool small) {
  seg->second.small_pool = small;
  const uint64_t end = endOf(seg->first, seg->second.size);
  for (auto b = blocks_.lower_bound(seg->first); b != blocks_.end() && b->first < end; ++b) {
    if (b->second.state == BlockState::Inactive) removeFree(b->first, b->second);
    b->second.small = small;
    if (b->second.state == BlockState::Inactive) addFree(b->first, b->second);
  }
}

// Two expandable ranges that touch are one segment, as PyTorch's snapshot reports them.
void AllocatorMachine::joinSegments(Segments::iterator left) {
  if (left == segments_.end()) return;
  auto right = std::next(left);
  if (right == segments_.end() || !left->second.expandable || !right->second.expandable ||
      left->second.stream != right->second.stream || endOf(left->first, left->second.size) != right->first)
    return;
  if (left->second.small_pool != right->second.small_pool) setPool(right, left->second.small_pool);
  const uint64_t end = endOf(right->first, right->second.size);
  for (auto b = blocks_.lower_bound(right->first); b != blocks_.end() && b->first < end; ++b)
    b->second.segment = left->first;
  left->second.size = wrappingAdd(left->second.size, right->second.size);
  const uint64_t boundary = right->first;
  segments_.erase(right);
  if (auto b = blocks_.find(boundary); b != blocks_.end() && b->second.state == BlockState::Inactive) mergeFree(b);
}

void AllocatorMachine::mapRange(uint64_t addr, int64_t size, uint64_t stream, uint32_t stack) {
  if (size <= 0) return anomaly(fmt::format("segment_map of {} bytes at {:#x}", size, addr));
  const uint64_t end = endOf(addr, size);
  auto after = segments_.lower_bound(addr);
  if ((after != segments_.end() && after->first < end) || segmentContaining(addr) != segments_.end())
    return anomaly(fmt::format("segment_map at {:#x} overlaps memory already mapped", addr));
  // A range joins the expandable segment it touches, and takes its pool.
  bool small = smallBySize(size);
  auto prev = segments_.lower_bound(addr);
  if (prev != segments_.begin()) {
    --prev;
    if (prev->second.expandable && prev->second.stream == stream && endOf(prev->first, prev->second.size) == addr)
      small = prev->second.small_pool;
  }
  auto next = segments_.find(end);
  if (next != segments_.end() && next->second.expandable && next->second.stream == stream) small = next->second.small_pool;
  insertSegment(addr, Segment{size, stream, {0, 0}, stack, small, true});
  auto self = segments_.find(addr);
  joinSegments(self);  // with what follows
  if (self != segments_.begin()) joinSegments(std::prev(self));  // with what precedes
}

void AllocatorMachine::unmapRange(uint64_t addr, int64_t size) {
  const uint64_t end = endOf(addr, size);
  auto seg = segmentContaining(addr);
  auto b = blockContaining(addr);
  if (size <= 0 || seg == segments_.end() || !seg->second.expandable || end > endOf(seg->first, seg->second.size) ||
      b == blocks_.end() || b->second.state != BlockState::Inactive || end > endOf(b->first, b->second.size))
    return anomaly(fmt::format("segment_unmap of {:#x}..{:#x}, not a free part of an expandable segment", addr, end));
  // The free block loses the range; what is left before and after it stays free.
  const Block free_block = b->second;
  const uint64_t block_start = b->first, block_end = endOf(b->first, b->second.size);
  eraseBlock(b);
  if (addr > block_start) {
    Block before = free_block;
    before.size = static_cast<int64_t>(addr - block_start);
    insertBlock(block_start, before);
  }
  // The segment is cut in two; the part after the range is a segment of its own.
  const Segment whole = seg->second;
  const uint64_t seg_start = seg->first, seg_end = endOf(seg->first, whole.size);
  reserved_ = wrappingSub(reserved_, size);
  if (addr > seg_start) seg->second.size = static_cast<int64_t>(addr - seg_start);
  else segments_.erase(seg);
  if (seg_end > end) {
    Segment right = whole;
    right.size = static_cast<int64_t>(seg_end - end);
    segments_.emplace(end, right);
    for (auto it = blocks_.lower_bound(end); it != blocks_.end() && it->first < seg_end; ++it) it->second.segment = end;
    if (block_end > end) {
      Block after = free_block;
      after.size = static_cast<int64_t>(block_end - end);
      after.segment = end;
      insertBlock(end, after);
    }
  }
}

// Moves the end of a block sized by inference (from before the trace) to `new_end`, giving the
// difference to or taking it from the free block after it.
bool AllocatorMachine::resizeInferred(Blocks::iterator it, uint64_t new_end) {
  Block& b = it->second;
  const uint64_t start = it->first, old_end = endOf(start, b.size);
  if (!b.inferred || new_end <= start) return false;
  const auto new_size = static_cast<int64_t>(new_end - start);
  if (new_size > b.size_max || new_size < roundSize(b.requested, settings_)) return false;
  if (new_end > old_end) {
    auto next = std::next(it);
    if (next == blocks_.end() || next->first != old_end || next->second.state != BlockState::Inactive ||
        next->second.segment != b.segment || endOf(next->first, next->second.size) < new_end)
      return false;
    Block rest = next->second;
    eraseBlock(next);
    rest.size = static_cast<int64_t>(endOf(old_end, rest.size) - new_end);
    if (rest.size > 0) insertBlock(new_end, rest);
  } else if (new_end < old_end) {
    Block tail;
    tail.size = tail.size_max = static_cast<int64_t>(old_end - new_end);
    tail.segment = b.segment;
    tail.stream = b.stream;
    tail.small = b.small;
    insertBlock(new_end, tail);
    mergeFree(blocks_.find(new_end));
  }
  countActive(b, -1);
  b.size = new_size;
  countActive(b, +1);
  b.inferred = false;
  resolutions_[start] = new_size;
  return true;
}

void AllocatorMachine::alloc(const Event& e, uint64_t index) {
  const int64_t rounded = roundSize(e.size, settings_);
  auto it = blocks_.find(e.addr);
  if (it == blocks_.end() || it->second.state != BlockState::Inactive) {
    bool found = false;
    if (it == blocks_.end()) {
      // Not where a block begins: a block from before the trace may end elsewhere than inferred.
      auto c = blockContaining(e.addr);
      if (c != blocks_.end() && c->second.state == BlockState::Inactive && c != blocks_.begin()) {
        auto p = std::prev(c);
        found = p->second.segment == c->second.segment && resizeInferred(p, e.addr);
      } else if (c != blocks_.end() && c->second.inferred) {
        found = resizeInferred(c, e.addr);
      }
      if (!found && c != blocks_.end() && c->second.state == BlockState::Inactive) {
        anomaly(fmt::format("event {}: alloc at {:#x}, inside a free block that begins at {:#x}", index, e.addr, c->first));
        Block rest = c->second;
        c->second.size = static_cast<int64_t>(e.addr - c->first);
        removeFree(c->first, rest);
        addFree(c->first, c->second);
        rest.size = static_cast<int64_t>(endOf(c->first, rest.size) - e.addr);
        insertBlock(e.addr, rest);
        found = true;
      }
      it = blocks_.find(e.addr);
    }
    if (!found || it == blocks_.end()) {
      anomaly(fmt::format("event {}: alloc at {:#x}, where no free block is", index, e.addr));
      Block b;
      b.size = b.size_max = rounded;
      b.requested = e.size;
      b.stream = e.stream;
      b.state = BlockState::ActiveAllocated;
      b.stack = e.stack;
      b.category = e.category;
      b.alloc_event = index;
      if (auto old = outside_.find(e.addr); old != outside_.end()) countActive(old->second, -1);
      outside_[e.addr] = b;
      countActive(b, +1);
      return;
    }
  }
  Block& b = it->second;
  const bool small = isSmallPoolSize(rounded);
  if (b.small != small) setPool(segments_.find(b.segment), small);
  removeFree(it->first, b);
  if (b.size < rounded) {
    anomaly(fmt::format("event {}: alloc of {} bytes in a free block of {} at {:#x}", index, rounded, b.size, e.addr));
  } else if (shouldSplit(b.size, rounded, small, settings_)) {
    Block rest = b;  // the remainder keeps the free block's stale requested size, as in PyTorch
    rest.size = b.size - rounded;
    rest.size_max = rest.size;
    b.size = rounded;
    insertBlock(endOf(e.addr, rounded), rest);
    it = blocks_.find(e.addr);
  }
  Block& taken = it->second;
  taken.state = BlockState::ActiveAllocated;
  taken.requested = e.size;
  taken.stack = e.stack;
  taken.category = e.category;
  taken.alloc_event = index;
  taken.inferred = false;
  taken.size_max = taken.size;
  countActive(taken, +1);
}

void AllocatorMachine::freeRequested(uint64_t addr) {
  auto it = blocks_.find(addr);
  Blocks* owner = &blocks_;
  if (it == blocks_.end() || it->second.state == BlockState::Inactive) {
    it = outside_.find(addr);
    owner = &outside_;
  }
  if (it == owner->end() || it->second.state != BlockState::ActiveAllocated)
    return anomaly(fmt::format("free_requested at {:#x}, where no block is allocated", addr));
  countActive(it->second, -1);
  it->second.state = BlockState::ActivePendingFree;
}

void AllocatorMachine::freeCompleted(uint64_t addr) {
  if (auto o = outside_.find(addr); o != outside_.end()) {
    countActive(o->second, -1);
    outside_.erase(o);
    return;
  }
  auto it = blocks_.find(addr);
  if (it == blocks_.end() || it->second.state == BlockState::Inactive)
    return anomaly(fmt::format("free_completed at {:#x}, where no block is in use", addr));
  countActive(it->second, -1);  // no-op once free_requested made it pending
  it->second.state = BlockState::Inactive;
  it->second.inferred = false;
  addFree(it->first, it->second);
  mergeFree(it);
}

}  // namespace sawtooth
