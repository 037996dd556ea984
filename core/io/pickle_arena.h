#pragma once
// Storage for the items of every container of a pickle document: large blocks that never move,
// so a container's items stay where they were written. One allocation per block instead of one
// per container: a 5 M-event snapshot read generically holds over 5 M dicts.

#include <cstddef>
#include <memory>
#include <vector>

#include "core/io/pickle_value.h"

namespace sawtooth {
class ReadBudget;
}

namespace sawtooth::pickle {

class ItemArena {
 public:
  ItemArena() = default;
  ItemArena(ItemArena&&) noexcept = default;
  ItemArena& operator=(ItemArena&&) noexcept = default;

  // nullptr when the budget (if any) refuses the memory.
  Value* allocate(size_t count, ReadBudget* budget);
  // Grows the most recent allocation, which ends at `end`, by `count` items when the block has
  // room for them; false otherwise.
  bool extend(const Value* end, size_t count);
  // Gives back the storage of a container that moved elsewhere, when it had a block of its own.
  void release(const Value* data, ReadBudget* budget);

 private:
  struct Release {
    void operator()(Value* p) const;
  };
  struct Large {
    std::unique_ptr<Value, Release> data;
    size_t count = 0;
  };
  std::vector<std::unique_ptr<Value, Release>> blocks_;  // shared by many containers
  std::vector<Large> large_;                             // one large container each
  Value* cursor_ = nullptr;
  Value* limit_ = nullptr;
  size_t next_block_items_ = size_t{1} << 12;
};

}  // namespace sawtooth::pickle
