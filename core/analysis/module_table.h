#pragma once
// What the Modules view shows at one moment (the peak, or an allocator event): the modules'
// bytes (module_memory.h), their icicle (module_icicle.h) and the table MemTracker's users know,
// from the allocator: per module (with its submodules) its parameters, gradients, optimizer
// state, activations, temporaries and other bytes, its forward's and backward's largest rise of
// allocated bytes and their time on the recording's clock (a call's median, and in all). The rows' own bytes sum to the live
// bytes exactly ("(outside modules)" holds the rest), so the table's "own" column does too.

#include <cstdint>
#include <optional>

#include "core/analysis/module_icicle.h"
#include "core/analysis/module_memory.h"
#include "core/analysis/table.h"

namespace sawtooth {

Table modulesTable(const ModuleMemory& memory);

struct ModulesAt {
  ModuleMemory memory;  // memory.unavailable says why a trace has no modules
  ModuleIcicle icicle;
  Table table;
};

ModulesAt modulesAt(const Trace& trace, int16_t device, std::optional<int64_t> position = {});
// The icicle and table of bytes already found (moduleMemoryOf).
ModulesAt modulesFrom(ModuleMemory memory);

}  // namespace sawtooth
