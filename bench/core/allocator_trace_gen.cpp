#include "bench/core/allocator_trace_gen.h"

#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "core/analysis/allocator_rules.h"

namespace sawtooth::bench {
namespace {

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Trace run(size_t events) {
    t_.events.reserve(events + 1024);
    std::vector<uint64_t> params;
    for (int i = 0; i < 40; ++i) params.push_back(malloc(pick({4 << 20, 16 << 20, 700 << 10, 2 << 10, 33 << 20}), 0));
    std::vector<uint64_t> grads;
    for (int step = 0; t_.events.size() < events; ++step) {
      const double scale = 1.0 + std::uniform_real_distribution<double>(-0.1, 0.1)(rng_);
      std::vector<uint64_t> acts;
      for (int layer = 0; layer < 48; ++layer) {
        const uint64_t stream = layer % 7 == 3 ? kSideStream : 0;
        acts.push_back(malloc(static_cast<int64_t>(pick({3 << 20, 12 << 20, 300 << 10, 64 << 10, 24 << 20}) * scale), stream));
        free(malloc(std::uniform_int_distribution<int64_t>(4, 2 << 20)(rng_), stream));
      }
      for (auto it = acts.rbegin(); it != acts.rend(); ++it) {
        if (grads.size() < 40) grads.push_back(malloc(static_cast<int64_t>((5 << 20) * scale), 0));
        free(*it);
        free(malloc(std::uniform_int_distribution<int64_t>(1 << 20, 8 << 20)(rng_), 0));
      }
      if (step % 50 == 49) emptyCache();
    }
    return std::move(t_);
  }

 private:
  static constexpr uint64_t kSideStream = 0x55d14c3e1a40;
  struct Block {
    int64_t size = 0;
    int64_t requested = 0;
    uint64_t segment = 0;
    uint64_t stream = 0;
    bool small = false;
    bool allocated = false;
  };
  using FreeKey = std::tuple<uint64_t, int64_t, uint64_t>;  // stream, size, address: best fit

  int64_t pick(std::initializer_list<int64_t> sizes) {
    auto it = sizes.begin();
    std::advance(it, std::uniform_int_distribution<size_t>(0, sizes.size() - 1)(rng_));
    return *it + std::uniform_int_distribution<int64_t>(0, 4095)(rng_);
  }

  void push(Action a, uint64_t addr, int64_t size, uint64_t stream) {
    Event e;
    e.t_ns = static_cast<int64_t>(t_.events.size()) * 1000;
    e.action = a;
    e.addr = addr;
    e.size = size;
    e.stream = stream;
    t_.events.push(e);
  }

  std::set<FreeKey>& pool(bool small) { return small ? small_free_ : large_free_; }

  uint64_t malloc(int64_t requested, uint64_t stream) {
    const int64_t rounded = roundSize(requested, settings_);
    const bool small = isSmallPoolSize(rounded);
    auto& free_blocks = pool(small);
    auto it = free_blocks.lower_bound({stream, rounded, 0});
    uint64_t addr;
    if (it != free_blocks.end() && std::get<0>(*it) == stream) {
      addr = std::get<2>(*it);
      free_blocks.erase(it);
    } else {
      const int64_t size = segmentSizeFor(rounded, settings_);
      addr = next_va_;
      next_va_ += static_cast<uint64_t>(size) + (segments_++ % 3 == 0 ? (64 << 20) : 0);
      blocks_[addr] = Block{size, 0, addr, stream, small, false};
      push(Action::SegmentAlloc, addr, size, stream);
    }
    Block& b = blocks_[addr];
    if (shouldSplit(b.size, rounded, small, settings_)) {
      Block rest = b;
      rest.size = b.size - rounded;
      b.size = rounded;
      blocks_[addr + static_cast<uint64_t>(rounded)] = rest;
      free_blocks.insert({stream, rest.size, addr + static_cast<uint64_t>(rounded)});
    }
    Block& taken = blocks_[addr];
    taken.allocated = true;
    taken.requested = requested;
    push(Action::Alloc, addr, requested, stream);
    return addr;
  }

  void free(uint64_t addr) {
    auto it = blocks_.find(addr);
    Block& b = it->second;
    push(Action::FreeRequested, addr, b.requested, b.stream);
    push(Action::FreeCompleted, addr, b.requested, b.stream);
    b.allocated = false;
    auto& free_blocks = pool(b.small);
    if (auto next = std::next(it); next != blocks_.end() && !next->second.allocated && next->second.segment == b.segment) {
      free_blocks.erase({next->second.stream, next->second.size, next->first});
      b.size += next->second.size;
      blocks_.erase(next);
    }
    if (it != blocks_.begin()) {
      auto prev = std::prev(it);
      if (!prev->second.allocated && prev->second.segment == b.segment) {
        free_blocks.erase({prev->second.stream, prev->second.size, prev->first});
        prev->second.size += b.size;
        blocks_.erase(it);
        it = prev;
      }
    }
    free_blocks.insert({it->second.stream, it->second.size, it->first});
  }

  // Every free block that is a whole segment goes back to the device.
  void emptyCache() {
    for (auto it = blocks_.begin(); it != blocks_.end();) {
      const Block& b = it->second;
      auto next = std::next(it);
      const bool whole = it->first == b.segment && (next == blocks_.end() || next->second.segment != b.segment);
      if (!b.allocated && whole) {
        pool(b.small).erase({b.stream, b.size, it->first});
        push(Action::SegmentFree, it->first, b.size, b.stream);
        it = blocks_.erase(it);
      } else {
        it = next;
      }
    }
  }

  std::mt19937_64 rng_;
  AllocatorSettings settings_;
  Trace t_;
  std::map<uint64_t, Block> blocks_;
  std::set<FreeKey> small_free_, large_free_;
  uint64_t next_va_ = 0x7f0000000000;
  uint64_t segments_ = 0;
};

}  // namespace

Trace makeAllocatorTrace(size_t events, uint64_t seed) { return Generator(seed).run(events); }

}  // namespace sawtooth::bench
