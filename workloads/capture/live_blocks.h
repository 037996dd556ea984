#pragma once
// Categories by pointer, decided as a recording streams in. A live block is untagged until the
// workload names it (parameter, gradient, optimizer state, input) or its life decides it:
//   born in forward and alive when backward starts -> activation;
//   born and freed inside one phase                 -> temporary;
//   anything else                                   -> unknown.
// A category learnt after an event was written comes back as an Update for that event row.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "core/model/action.h"
#include "core/model/event_store.h"

namespace sawtooth::capture {

class LiveBlocks {
 public:
  struct Update {
    uint64_t seq;
    Category category;
  };

  void onAlloc(int16_t device, uint64_t addr, int64_t size, uint64_t seq, uint32_t phase);
  // Category of the free_requested row; remembers its seq for later updates.
  Category onFreeRequested(int16_t device, uint64_t addr, uint64_t seq);
  // Category of the free_completed row (decides "temporary"); the block is gone afterwards.
  Category onFreeCompleted(int16_t device, uint64_t addr, uint32_t current_phase, std::vector<Update>& updates);
  // Tags the live block containing addr; false when no live block contains it.
  bool tag(int16_t device, uint64_t addr, Category category, std::vector<Update>& updates);
  // Untagged blocks born in a phase for which born_in_forward(phase) holds become activations.
  void markActivations(const std::function<bool(uint32_t phase)>& born_in_forward, std::vector<Update>& updates);
  // When backward ends every activation it needed is gone; a block still alive was not one
  // (a library workspace made during the first forward, a cache) and goes back to unknown.
  void unmarkSurvivors(const std::function<bool(uint32_t phase)>& born_in_forward, std::vector<Update>& updates);

  size_t size() const;
  int64_t liveBytes(Category category) const;

 private:
  struct Block {
    int64_t size = 0;
    uint64_t alloc_seq = 0;
    uint64_t free_requested_seq = UINT64_MAX;
    uint32_t birth_phase = kNoPhase;
    Category category = Category::Unknown;
  };
  void setCategory(Block& b, Category c, std::vector<Update>& updates);
  Block* find(int16_t device, uint64_t addr);

  std::map<int16_t, std::map<uint64_t, Block>> blocks_;  // device -> start address -> block
};

}  // namespace sawtooth::capture
