#pragma once
// The JSON document and the text table of `sawtooth-trace modules` (see README): each module's
// bytes alive at one moment by category, its own and with its descendants', and what its
// forward, backward and recompute cost.

#include <string>

#include "core/analysis/module_memory.h"

namespace sawtooth {

// Rows down to `max_depth` (negative: all); the deepest shown stand for their subtrees.
std::string modulesJson(const Trace& trace, const std::string& file, const ModuleMemory& memory, int max_depth,
                        int indent = 2);
std::string modulesText(const ModuleMemory& memory, int max_depth);

}  // namespace sawtooth
