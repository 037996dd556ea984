#pragma once
// The ladder for one recording as the app shows it: a table of its rungs (exported as CSV like any
// other), a few lines saying what it was predicted from, and the reasoning of each row.

#include <string>
#include <vector>

#include "core/analysis/ladder.h"
#include "core/analysis/table.h"

namespace sawtooth {

// One row per rung, baseline first: rung, peak, change, reserved, step, change, fits, largest
// batch, measured peak, its error, measured step, its error, note.
Table ladderTable(const LadderReport& report);
// What the predictions start from and where to begin (run, device, memory judged against,
// repeated blocks, step time, the diagnosis with its evidence).
std::vector<std::string> ladderSummary(const LadderReport& report);
// A row's reasoning: which bytes change and why, what is alive at its peak, how its time was got.
std::vector<std::string> ladderRowDetails(const LadderReport& report, size_t row);

}  // namespace sawtooth
