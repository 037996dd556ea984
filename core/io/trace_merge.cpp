#include "core/io/trace_merge.h"

#include <fmt/format.h>

#include "core/io/native_format.h"

namespace sawtooth {

Status mergeRankFiles(std::span<const std::string> rank_paths, const std::string& out_path) {
  std::vector<RankTrace> ranks;
  for (size_t r = 0; r < rank_paths.size(); ++r) {
    auto trace = readNative(rank_paths[r]);
    if (!trace) return Error{fmt::format("rank {}: {}", r, trace.error().message)};
    ranks.push_back(RankTrace{static_cast<int>(r), std::move(*trace)});
  }
  auto merged = mergeRankTraces(ranks);
  if (!merged) return merged.error();
  ranks.clear();
  return writeNative(*merged, out_path);
}

}  // namespace sawtooth
