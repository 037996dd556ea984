#pragma once
// Which module holds the memory at one moment (the peak, or any allocator event of a device), as
// PyTorch's MemTracker tabulates it but from the allocator's own blocks: per module the bytes of
// its parameters, gradients, optimizer state, activations and temporaries alive then (its own,
// and with its descendants'), and what its forward, backward and recompute cost — calls, time on
// the recording's clock, and the largest rise of the device's allocated bytes during one call
// above their value when the call began (the module's children included).
//
// Every byte is somewhere: what no module holds (allocated outside every module, or before the
// trace began) is the row "(outside modules)", so the rows' own bytes sum exactly to the live
// bytes at that moment (at the peak, to the peak).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/live_allocations.h"
#include "core/model/trace.h"

namespace sawtooth {

inline constexpr std::string_view kOutsideModules = "(outside modules)";

// Bytes alive by category (indexed by Category).
struct CategoryBytes {
  std::array<int64_t, kCategoryCount> bytes{};

  int64_t total() const;
  int64_t operator[](Category c) const { return bytes[static_cast<size_t>(c)]; }
  int64_t& operator[](Category c) { return bytes[static_cast<size_t>(c)]; }
  // Input, unknown and autograd detail: what the table shows as "other".
  int64_t other() const;
  void add(const CategoryBytes& o);
};

struct PassCost {
  int64_t calls = 0;
  int64_t time_ns = 0;         // summed over the calls
  // A call's median: what one call takes, which the sum is not when the first step's calls carry
  // the program's warm-up (a GPT-2 block's first forward took 1.35 s of its 1.38 s over six steps).
  int64_t median_ns = 0;
  int64_t peak_increment = 0;  // the largest over the calls (never below 0)
};

struct ModuleRow {
  uint32_t module = kNoModule;  // kNoModule: the "(outside modules)" row
  std::string name;             // full name, root first ("GPT2LMHeadModel.transformer.h.0"), or kOutsideModules
  std::string class_name;
  uint32_t parent_row = UINT32_MAX;  // the row of its parent module
  int depth = 0;                     // 0: a root (and the outside row)
  int64_t declared_parameter_bytes = 0;  // the module tree's: its own parameters' tensors
  CategoryBytes self;           // alive, the module's own
  CategoryBytes total;          // alive, the module's and its descendants'
  int64_t allocations = 0;      // alive, its own
  PassCost forward, backward, recompute;
};

struct ModuleMemory {
  int16_t device = 0;
  int64_t position = -1;  // the device's allocator event (-1: before the first)
  bool at_peak = false;
  int64_t live_bytes = 0;  // what the rows' own bytes sum to
  // The event the moment is after: its pass, phase and module ("" when none).
  std::string at_pass, at_phase, at_module;
  // The modules in tree order (a parent, then its children in the tree's order), then the
  // outside row. Empty when the trace has no modules (see unavailable).
  std::vector<ModuleRow> rows;
  // The forward, backward and recompute costs were computed: over the whole trace, or for a file
  // too large to read whole over the moment's step (costs_scope says which step); when not,
  // costs_unknown says why.
  bool costs_known = true;
  std::string costs_scope;    // "" : the whole trace; else "step 12 (the moment's)"
  std::string costs_unknown;  // why there are no costs, in words
  std::string headline;  // "At the peak on cuda:0 (allocator event 1,234): 572.5 MB in 14 modules, ..."
  std::string unavailable;  // why the trace has no modules to show; empty when it has
  // The program to record again with modules, when sawtooth-record recorded it without them.
  struct Program {
    std::vector<std::string> argv;  // empty: none
    std::string cwd;
    std::vector<std::string> environment;  // KEY=VALUE: what sawtooth-record kept of it (meta "env.KEY")
  } record_again;
};

// Empty when the trace records modules; else why not, in words for the user.
std::string modulesUnavailableReason(const Trace& trace);
// The command line and folder of a program sawtooth-record recorded with module tracking off (the
// file's meta "modules" is "off", "command" a JSON list of strings, "cwd", the environment entries
// it kept as "env.KEY"), so that it can be recorded again with modules; argv is empty for anything
// else or a command that is not such a list.
ModuleMemory::Program programToRecordWithModules(const Trace& trace);

// What the moment's event was part of, in words ("" when nothing): its pass, phase and module.
struct MomentContext {
  std::string pass, phase, module;
};

// At an allocator event of the device; `position` empty: at the device's peak.
ModuleMemory moduleMemoryAt(const Trace& trace, int16_t device, std::optional<int64_t> position = {});
// The bytes of allocations already found (a file too large to read whole: summary_moment.h), by
// `trace`'s module tree; no costs (costs_known false).
ModuleMemory moduleMemoryOf(const Trace& trace, const LiveSet& live, bool at_peak, const MomentContext& context);
// Each row's forward, backward and recompute costs from `trace`'s module calls and its events on
// `device` (every call and event, or a window of them: a rise is measured from the allocated
// bytes when a call begins, so a window that starts with the call gives the same figure).
void addModuleCosts(ModuleMemory& memory, const Trace& trace, int16_t device);

// Backward's stretches: for each module and each of its forward calls that a backward followed,
// from the first to the last moment its backward ran — its backward calls (the shim's portable
// marks) and the events of its backward (attributed through autograd's link: the native tracker,
// the workloads), its submodules' included — as a ModuleCall of pass Backward. What the Modules
// table's backward time and the timeline's module band show.
std::vector<ModuleCall> backwardStretches(const Trace& trace);

// The rows down to `max_depth` (0: roots only), each deepest one standing for its subtree (its
// total), and the outside row: their totals still sum to the live bytes.
std::vector<const ModuleRow*> rowsToDepth(const ModuleMemory& memory, int max_depth);

}  // namespace sawtooth
