#pragma once
// What the programs do with a trace once it is imported: summary, series, level-of-detail queries
// and the exporters. A fuzzer that gets a hostile file through an importer runs all of it, so a
// trace that imports but breaks the analysis is found too.

#include <cstddef>
#include <cstdint>

#include "core/model/trace.h"

namespace sawtooth::fuzz {

// Also aborts when the trace breaks what no input may: a hash index with a long run of slots
// (keys that collide), text output with raw control characters.
void exerciseTrace(const Trace& trace);

// Aborts when the trace holds more events or stack frames than `input_bytes` may stand for: 16 a
// byte past the first `floor` (ReadLimits::max_amplification, amplification_floor), the readers'
// bound, computed here on its own.
void checkAmplification(const Trace& trace, size_t input_bytes, uint64_t floor);

}  // namespace sawtooth::fuzz
