#pragma once
// sawtooth-record --ranks N: the ranks' .sawtooth files merged (core/model/trace_merge.h) into one.

#include <span>
#include <string>

#include "core/model/trace_merge.h"
#include "core/util/result.h"

namespace sawtooth {

// Reads each rank's .sawtooth file (rank = position in the list), merges them and writes the
// merged trace to `out_path`.
Status mergeRankFiles(std::span<const std::string> rank_paths, const std::string& out_path);

}  // namespace sawtooth
