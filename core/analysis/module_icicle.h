#pragma once
// The Modules view's icicle: the module hierarchy at one moment as a flame graph whose widths are
// bytes (laid out by flame_layout.h, as the live-bytes view's). Under each module, its
// submodules, then its own bytes split by category ("activation", "parameter", ...) as leaves
// the view colours by category; the root's children are the model's roots and
// "(outside modules)", so the root is every live byte.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/analysis/flame_graph.h"
#include "core/analysis/module_memory.h"

namespace sawtooth {

struct ModuleIcicle {
  FlameGraph graph;  // nodes[0]: "(all)"
  // Per node: the row of ModuleMemory it draws (UINT32_MAX for the root), and for a leaf of a
  // module's own bytes the category it holds.
  std::vector<uint32_t> row;
  std::vector<std::optional<Category>> category;
};

ModuleIcicle buildModuleIcicle(const ModuleMemory& memory);

}  // namespace sawtooth
