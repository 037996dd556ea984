#pragma once
// Picks the frames of a stack worth showing first: the user's Python frames when there are any
// (PyTorch's snapshots interleave them with interpreter and dispatcher frames), otherwise the
// first frames that are not the allocator's or the unwinder's own.

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/stack_table.h"

namespace sawtooth {

// The recorder's own Python frames (its start-up shim, sawtooth_shim/*, wraps some of PyTorch's
// calls): never shown as the program's.
bool isRecorderFrame(const FrameView& frame);

std::vector<uint32_t> interestingFrames(const StackTable& stacks, uint32_t stack, size_t max_frames);
// The same frames with the user's own first (isUserFrame, call_sites.h: Python outside installed
// packages and the standard library), innermost first, then the others (PyTorch's) in their order.
std::vector<uint32_t> userFirstFrames(const StackTable& stacks, uint32_t stack, size_t max_frames);

// "forward (linear.py:125)": the first interesting frame of a stack (never the unwinder's or the
// allocator's own), with its file's base name and line when known; empty when there is none.
std::string topFrameText(const StackTable& stacks, uint32_t stack);
// "linear.py:125", "CUDACachingAllocator.cpp", or empty for a frame without a file.
std::string frameLocation(const Frame& frame);
std::string frameLocation(const FrameView& frame);

}  // namespace sawtooth
