#pragma once
// The files a distributed recording's ranks write beside its output until it merges them into it:
// OUT.rankN.sawtooth for OUT.sawtooth, as sawtooth-record names them (the data-parallel workload's
// ranks and a recorded torchrun's alike).

#include <optional>
#include <string>
#include <string_view>

namespace sawtooth::recording {

struct RankFileName {
  std::string stem;  // "run" for run.rank3.sawtooth
  int rank = 0;
};

// The stem and rank of a rank file's name (no folder); nullopt for any other name.
std::optional<RankFileName> parseRankFileName(std::string_view file_name);
// OUT.rankN.sawtooth for OUT.sawtooth (or for OUT without the extension), in OUT's folder.
std::string rankFilePath(std::string_view out, int rank);

}  // namespace sawtooth::recording
