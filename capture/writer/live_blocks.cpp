#include "capture/writer/live_blocks.h"

namespace sawtooth::capture {
namespace {

void push(std::vector<LiveBlocks::Update>& updates, uint64_t seq, Category c) {
  if (seq != kNoSeq) updates.push_back({seq, c});
}

}  // namespace

void LiveBlocks::onAlloc(int16_t device, uint64_t addr, int64_t size, uint64_t seq, uint32_t phase, uint32_t module) {
  Block b;
  b.size = size;
  b.module = module;
  b.alloc_seq = seq;
  b.birth_phase = phase;
  blocks_.try_emplace(device, &pool_).first->second[addr] = b;
}

LiveBlocks::Block* LiveBlocks::find(int16_t device, uint64_t addr) {
  auto d = blocks_.find(device);
  if (d == blocks_.end()) return nullptr;
  auto it = d->second.find(addr);
  return it == d->second.end() ? nullptr : &it->second;
}

Category LiveBlocks::onFreeRequested(int16_t device, uint64_t addr, uint64_t seq, std::vector<Update>& updates) {
  Block* b = find(device, addr);
  if (!b) return Category::Unknown;
  write(*b, updates);
  b->free_requested_seq = seq;
  return b->baseline ? Category::Unknown : b->category;
}

Category LiveBlocks::onFreeCompleted(int16_t device, uint64_t addr, uint64_t seq, uint32_t current_phase,
                                     std::vector<Update>& updates) {
  auto d = blocks_.find(device);
  if (d == blocks_.end()) return Category::Unknown;
  auto it = d->second.find(addr);
  if (it == d->second.end()) return Category::Unknown;
  Block& b = it->second;
  if (b.category == Category::Unknown && b.birth_phase != kNoPhase && b.birth_phase == current_phase)
    setCategory(b, Category::Temporary, updates);
  write(b, updates);
  const Category c = b.baseline ? Category::Unknown : b.category;
  if (track_deaths_ && !b.baseline) deaths_.push_back({b.alloc_seq, b.free_requested_seq, seq});
  d->second.erase(it);
  return c;
}

bool LiveBlocks::tag(int16_t device, uint64_t addr, Category category, std::vector<Update>& updates, uint32_t module) {
  auto d = blocks_.find(device);
  if (d == blocks_.end()) return false;
  // The block whose range holds addr: a tensor's data may start inside its block.
  auto it = d->second.upper_bound(addr);
  if (it == d->second.begin()) return false;
  --it;
  if (addr >= it->first + static_cast<uint64_t>(it->second.size) && !(it->second.size == 0 && addr == it->first))
    return false;
  setCategory(it->second, category, updates);
  if (module != kKeepModule && module != kNoModule) setModule(it->second, module, updates);
  return true;
}

void LiveBlocks::markActivations(const std::function<bool(uint32_t)>& born_in_forward, std::vector<Update>& updates) {
  for (auto& [device, blocks] : blocks_)
    for (auto& [addr, b] : blocks)
      if (b.category == Category::Unknown && b.birth_phase != kNoPhase && born_in_forward(b.birth_phase))
        setCategory(b, Category::Activation, updates, /*may_wait=*/b.outlived_backward);
}

void LiveBlocks::unmarkSurvivors(const std::function<bool(uint32_t)>& born_in_forward, std::vector<Update>& updates) {
  for (auto& [device, blocks] : blocks_)
    for (auto& [addr, b] : blocks)
      if (b.category == Category::Activation && b.birth_phase != kNoPhase && born_in_forward(b.birth_phase)) {
        setCategory(b, Category::Unknown, updates, /*may_wait=*/b.outlived_backward);
        b.outlived_backward = true;
      }
}

void LiveBlocks::settle(std::vector<Update>& updates) {
  for (auto& [device, blocks] : blocks_)
    for (auto& [addr, b] : blocks) write(b, updates);
}

void LiveBlocks::startWindowAt(uint64_t first_seq, std::vector<Update>& updates) {
  auto before = [&](uint64_t seq) { return seq == kNoSeq || seq < first_seq; };
  auto inside = [&](uint64_t seq) { return seq != kNoSeq && seq >= first_seq; };
  for (auto& [device, blocks] : blocks_)
    for (auto& [addr, b] : blocks) {
      if (b.baseline || !before(b.alloc_seq)) continue;
      b.baseline = true;
      if (inside(b.free_requested_seq)) updates.push_back({b.free_requested_seq, Category::Unknown});
    }
  // Blocks born before the window and freed inside it.
  std::deque<Death> kept;
  for (const Death& d : deaths_) {
    if (!inside(d.free_completed_seq)) continue;  // died before the window: gone with it
    if (before(d.alloc_seq)) {
      if (inside(d.free_requested_seq)) updates.push_back({d.free_requested_seq, Category::Unknown});
      updates.push_back({d.free_completed_seq, Category::Unknown});
    } else {
      kept.push_back(d);
    }
  }
  deaths_.swap(kept);
}

void LiveBlocks::setCategory(Block& b, Category c, std::vector<Update>& updates, bool may_wait) {
  if (b.category == c) return;
  b.category = c;
  if (!may_wait) write(b, updates);
}

void LiveBlocks::write(Block& b, std::vector<Update>& updates) {
  if (b.baseline || b.written == b.category) return;  // a baseline block's rows in the window stay uncategorised
  b.written = b.category;
  push(updates, b.alloc_seq, b.category);
  push(updates, b.free_requested_seq, b.category);
}

void LiveBlocks::setModule(Block& b, uint32_t module, std::vector<Update>& updates) {
  if (b.module == module) return;
  b.module = module;
  if (b.alloc_seq == kNoSeq) return;
  write(b, updates);  // (a category that waited goes with it)
  updates.push_back({b.alloc_seq, b.baseline ? Category::Unknown : b.category, module});
}

size_t LiveBlocks::size() const {
  size_t n = 0;
  for (const auto& [device, blocks] : blocks_) n += blocks.size();
  return n;
}

int64_t LiveBlocks::liveBytes(Category category) const {
  int64_t bytes = 0;
  for (const auto& [device, blocks] : blocks_)
    for (const auto& [addr, b] : blocks)
      if (b.category == category) bytes += b.size;
  return bytes;
}

}  // namespace sawtooth::capture
