#pragma once
// The repeated blocks of a model (a ModuleList of identical layers), which activation
// checkpointing works on, found in a LadderInput.
//
// With module data (issue 23: the module tree and each event's module) the blocks are the
// children of the list whose calls come one after another in each forward. Without it they are
// read from the forward's allocation pattern: identical layers allocate the same sizes in the
// same order, so the longest stretch of the forward made of N ≥ 2 repeats of one sequence of
// allocations and frees is taken as N blocks (the first forward decides; the others are matched
// to it).

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

// Fills input.repeated from the allocation pattern of each micro-step's forward.
RepeatedBlocks repeatedBlocksFromPattern(const LadderInput& input);

}  // namespace sawtooth
