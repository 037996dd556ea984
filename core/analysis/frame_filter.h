#pragma once
// Picks the frames of a stack worth showing first: the user's Python frames when there are any
// (PyTorch's snapshots interleave them with interpreter and dispatcher frames), otherwise the
// first frames that are not the allocator's or the unwinder's own.

#include <cstdint>
#include <vector>

#include "core/model/stack_table.h"

namespace sawtooth {

std::vector<uint32_t> interestingFrames(const StackTable& stacks, uint32_t stack, size_t max_frames);

}  // namespace sawtooth
