#pragma once
// The allocations alive on a device at one moment, each with its requested size, stack and
// category — what the flame graph, the table by call site and the diff group. Allocations made
// before a snapshot's trace began come from the snapshot's segments (with the stack PyTorch kept
// for them); what no allocation accounts for is `unattributed` and shows as "(no stack)".
//
// Scope is the whole device (alloc / free_completed, from what was alive when the trace began),
// or one run (its own allocs and frees from zero, as info's per-run peaks count them).

#include <cstdint>
#include <optional>
#include <vector>

#include "core/model/trace.h"

namespace sawtooth {

struct LiveAllocation {
  uint64_t address = 0;
  int64_t bytes = 0;            // requested
  uint32_t stack = kNoStack;
  Category category = Category::Unknown;
  uint64_t alloc_event = UINT64_MAX;  // UINT64_MAX: before the trace
  uint32_t module = kNoModule;        // the module the bytes belong to (model/module_tree.h)
  Pass pass = Pass::None;
};

struct LiveSet {
  int16_t device = 0;
  std::optional<uint16_t> run;
  int64_t position = -1;        // after this allocator event of the device; -1: the start
  std::vector<LiveAllocation> allocations;
  int64_t total = 0;            // the scope's live bytes (allocations + unattributed)
  int64_t unattributed = 0;     // bytes the scope counts that no allocation accounts for
};

// The peak of the scope's live bytes: its value and allocator-event position (-1: the start).
struct ScopePeak {
  int64_t bytes = 0;
  int64_t position = -1;
  uint64_t event = UINT64_MAX;
};

LiveSet liveAllocationsAt(const Trace& trace, int16_t device, int64_t position, std::optional<uint16_t> run = {});

// For a run: its peak on a device; for the whole device the peak of the allocated series (as info
// reports it, counters included).
ScopePeak scopePeak(const Trace& trace, int16_t device, std::optional<uint16_t> run = {});

// Requested bytes allocated over the whole scope (every alloc), per stack, category and module.
struct AllocatedTotal {
  uint32_t stack = kNoStack;
  Category category = Category::Unknown;
  uint32_t module = kNoModule;
  int64_t bytes = 0;
  int64_t count = 0;
};
std::vector<AllocatedTotal> allocatedTotals(const Trace& trace, int16_t device, std::optional<uint16_t> run = {});

}  // namespace sawtooth
