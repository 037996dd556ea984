#pragma once
// What the programs do with a trace once it is imported: summary, series, level-of-detail queries
// and the exporters. A fuzzer that gets a hostile file through an importer runs all of it, so a
// trace that imports but breaks the analysis is found too.

#include "core/model/trace.h"

namespace sawtooth::fuzz {

void exerciseTrace(const Trace& trace);

}  // namespace sawtooth::fuzz
