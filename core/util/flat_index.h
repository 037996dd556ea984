#pragma once
// An open-addressing hash index of dense ids (0, 1, 2, ...) whose keys live elsewhere: the table
// stores only each id's hash, and the caller says whether an id's key equals the one looked up.
// Interning tables (strings, frames, stacks) use it so that a lookup allocates nothing. Their keys
// come from files: hash them with keyedHash (core/util/keyed_hash.h), never with a fixed function,
// or a file can put every key on one probe sequence.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/util/keyed_hash.h"

namespace sawtooth {

class FlatIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // The id whose key `equals` says matches, among those stored with this hash; kNone if none.
  template <typename Equals>
  uint32_t find(uint64_t hash, Equals&& equals) const {
    if (slots_.empty()) return kNone;
    const auto h = static_cast<uint32_t>(hash);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id == kNone) return kNone;
      if (s.hash == h && equals(s.id)) return s.id;
    }
  }

  // Records `id` (new, not present) under `hash`.
  void insert(uint64_t hash, uint32_t id) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    place(static_cast<uint32_t>(hash), id);
    ++count_;
  }

  size_t bytesResident() const { return slots_.capacity() * sizeof(Slot); }
  // The longest run of occupied slots: what a lookup may walk at worst (tests of the hash).
  size_t longestRun() const {
    size_t longest = 0, run = 0;
    for (size_t i = 0; i < 2 * slots_.size(); ++i) {  // twice round: a run may wrap past the end
      run = slots_[i & mask_].id == kNone ? 0 : run + 1;
      longest = std::max(longest, std::min(run, count_));
    }
    return longest;
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    uint32_t id = kNone;
  };
  void place(uint32_t h, uint32_t id) {
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].id == kNone) {
        slots_[i] = {h, id};
        return;
      }
    }
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.id != kNone) place(s.hash, s.id);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
};

}  // namespace sawtooth
