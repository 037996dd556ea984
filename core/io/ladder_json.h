#pragma once
// The JSON document and the text table of `sawtooth-trace ladder` (see README, "The ladder").

#include <string>

#include "core/analysis/ladder.h"

namespace sawtooth {

std::string ladderJson(const LadderReport& report, const std::string& file, int indent = 2);
std::string ladderText(const LadderReport& report);

}  // namespace sawtooth
