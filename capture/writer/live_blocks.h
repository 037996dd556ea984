#pragma once
// Categories by pointer, decided as a recording streams in. A live block is untagged until the
// workload names it (parameter, gradient, optimizer state, input) or its life decides it:
//   born in forward and alive when backward starts -> activation;
//   born and freed inside one phase                 -> temporary;
//   anything else                                   -> unknown.
// A block still alive when backward ends was not one of its activations and goes back to unknown
// (a library's workspace made in the first forward, a cache). Once it has outlived a backward,
// the activation mark a later backward gives it reaches its rows only if it dies as one (its
// free, or the end of the recording: settle()): a block that lives through every step would
// otherwise change category twice a step, and each change of a row written long ago moves the
// file's summaries from that row to the end (core/analysis/summary_builder.h: recategorise).
// A category learnt after an event was written comes back as an Update for that event row; so
// does the module a tag names (a parameter's, gradient's or optimizer state's block is its
// parameter's module, whatever was running when it was allocated).
//
// Recordings of a window (the last N events, or steps A to B) start from a baseline: the blocks
// alive at the window's start count as "bytes already there", uncategorised, exactly as a
// PyTorch snapshot's blocks from before its trace began. Their frees in the window are therefore
// written uncategorised too, so that every category's series stays the sum of its own blocks.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory_resource>
#include <vector>

#include "core/model/action.h"
#include "core/model/event_store.h"

namespace sawtooth::capture {

inline constexpr uint64_t kNoSeq = UINT64_MAX;  // an event that is not written to the file
inline constexpr uint32_t kKeepModule = kNoModule - 1;  // an Update that leaves the row's module as it is

class LiveBlocks {
 public:
  struct Update {
    uint64_t seq;
    Category category;
    uint32_t module = kKeepModule;
  };

  void onAlloc(int16_t device, uint64_t addr, int64_t size, uint64_t seq, uint32_t phase, uint32_t module = kNoModule);
  // Category of the free_requested row; remembers its seq for later updates. A category that
  // waited (see above) reaches the allocation's row first.
  Category onFreeRequested(int16_t device, uint64_t addr, uint64_t seq, std::vector<Update>& updates);
  // Category of the free_completed row (decides "temporary"); the block is gone afterwards.
  Category onFreeCompleted(int16_t device, uint64_t addr, uint64_t seq, uint32_t current_phase,
                           std::vector<Update>& updates);
  // Tags the live block containing addr (and gives it to `module`, unless kKeepModule); false
  // when no live block contains it.
  bool tag(int16_t device, uint64_t addr, Category category, std::vector<Update>& updates,
           uint32_t module = kKeepModule);
  // Untagged blocks born in a phase for which born_in_forward(phase) holds become activations.
  void markActivations(const std::function<bool(uint32_t phase)>& born_in_forward, std::vector<Update>& updates);
  // When backward ends every activation it needed is gone; a block still alive was not one
  // (a library workspace made during the first forward, a cache) and goes back to unknown.
  void unmarkSurvivors(const std::function<bool(uint32_t phase)>& born_in_forward, std::vector<Update>& updates);
  // The categories that wait for their blocks' end, given to their rows now (the recording ends).
  void settle(std::vector<Update>& updates);

  // The window now starts at event `first_seq`: blocks allocated before it that are alive there
  // become part of the baseline, and their rows from first_seq on are made uncategorised.
  // Needs trackWindow(true) from the start, to know the blocks that died since.
  void startWindowAt(uint64_t first_seq, std::vector<Update>& updates);
  void trackWindow(bool on) { track_deaths_ = on; }

  size_t size() const;
  int64_t liveBytes(Category category) const;

 private:
  struct Block {
    int64_t size = 0;
    uint64_t alloc_seq = kNoSeq;
    uint64_t free_requested_seq = kNoSeq;
    uint32_t birth_phase = kNoPhase;
    Category category = Category::Unknown;
    Category written = Category::Unknown;  // what its rows were last given (category may wait: see above)
    uint32_t module = kNoModule;
    bool baseline = false;  // alive when the window began: its rows stay uncategorised
    bool outlived_backward = false;
  };
  struct Death {
    uint64_t alloc_seq, free_requested_seq, free_completed_seq;
  };
  // may_wait: an activation mark of a block that outlived a backward (see above).
  void setCategory(Block& b, Category c, std::vector<Update>& updates, bool may_wait = false);
  void write(Block& b, std::vector<Update>& updates);  // the block's rows take its category
  void setModule(Block& b, uint32_t module, std::vector<Update>& updates);
  Block* find(int16_t device, uint64_t addr);

  // device -> start address -> block; the nodes come from a pool (a block is born and dies at
  // every allocation: the general heap cost more than the rest of the bookkeeping).
  std::pmr::unsynchronized_pool_resource pool_;
  std::map<int16_t, std::pmr::map<uint64_t, Block>> blocks_;
  bool track_deaths_ = false;
  std::deque<Death> deaths_;  // blocks that died since the window's start, in order of death
};

}  // namespace sawtooth::capture
