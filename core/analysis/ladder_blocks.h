#pragma once
// The repeated blocks of a model (a ModuleList of identical layers), which activation
// checkpointing works on, found in a LadderInput.
//
// They are read from the forward's allocation pattern first: identical layers allocate the same
// sizes in the same order, so the longest stretch of the forward made of N ≥ 2 repeats of one
// sequence of allocations and frees is taken as N blocks (the first forward decides; the others
// are matched to it). The H200 checks of the ladder were made this way. Where the pattern finds
// nothing (layers that allocate differently, a forward too long to search) and the recording has
// modules (issue 23), the blocks are the longest run of consecutive children of one class (and
// parameter size) under one module, each block's ops those from its forward call's start to the
// next block's.

#include "core/analysis/ladder_input.h"

namespace sawtooth {

// Longest-coverage repetition in `signature` (one value per op): the start, period and count of
// the run of identical periods that covers the most ops (ties: more repeats, then earlier).
// count < 2 when nothing repeats. Periods shorter than `min_period` are not considered.
struct Repetition {
  size_t start = 0;
  size_t period = 0;
  size_t count = 0;
};
Repetition longestRepetition(const std::vector<uint64_t>& signature, size_t min_period = 2);

// Fills input.repeated from the allocation pattern of each micro-step's forward; `has_modules`
// only chooses the words (the recording has a module tree, tried after the pattern).
RepeatedBlocks repeatedBlocksFromPattern(const LadderInput& input, bool has_modules);
// From the module tree and its forward calls in run `run` (kNoRun: any); count < 2 when no
// module has two children of one class in a row, or no forward shows their calls in order.
RepeatedBlocks repeatedBlocksFromModules(const LadderInput& input, const ModuleTree& tree, uint16_t run);

}  // namespace sawtooth
