#include "core/model/allocator_segments.h"

namespace sawtooth {

std::string_view name(BlockState state) {
  switch (state) {
    case BlockState::ActiveAllocated: return "active_allocated";
    case BlockState::ActivePendingFree: return "active_pending_free";
    case BlockState::Inactive: return "inactive";
  }
  return "?";
}

std::optional<BlockState> parseBlockState(std::string_view text) {
  if (text == "active_allocated") return BlockState::ActiveAllocated;
  if (text == "active_pending_free") return BlockState::ActivePendingFree;
  if (text == "inactive") return BlockState::Inactive;
  return std::nullopt;
}

}  // namespace sawtooth
