#pragma once
// Which module an allocation belongs to, read on the allocating thread (the allocator calls the
// tracker there, under its lock: this is a thread-local read and, in backward, one pointer copy).
//
// Forward and recompute: the shim marks each call of a module on its thread (one ctypes call at
// enter and at exit: sawtooth_tracker_module_enter/exit), so the innermost open call is the
// module. Backward runs on autograd's own threads, where no Python frame and no module hook is:
// there the node being run says whose forward made it — its sequence number and its forward
// thread, the link PyTorch's profiler uses to pair a backward op with its forward op — and the
// sending thread maps that to the module whose call held the number (sequence_map.h). Module
// backward hooks would change the graph (BackwardHookFunction), and ModTracker's multi-grad hooks
// cost two tensor-hook registrations per module call (measured: tens of microseconds each, more
// than the whole budget); this costs nothing in backward but the read.

#include <cstdint>

namespace sawtooth::tracker {

struct ModuleNow {
  uint32_t module = UINT32_MAX;  // the module, or none
  uint8_t pass = 0;              // sawtooth::Pass
  bool by_sequence = false;      // backward: the module is the one whose call made node (thread, seq)
  uint64_t thread = 0;
  uint64_t seq = 0;
};

// What runs on this thread now.
ModuleNow moduleNow();

// A mark of the shim's on this thread; `thread` and `seq` are the thread's autograd numbering.
struct ModuleMark {
  uint64_t thread = 0;
  uint64_t seq = 0;
};
ModuleMark enterModule(uint32_t module, uint8_t pass);
// The pass of a call the shim marked with pass 0: a recompute when autograd runs a node on this
// thread (a checkpointed forward inside backward), else a forward. Any other pass is the shim's.
uint8_t passOfCall(uint8_t asked);
// False when the module has no open call on this thread (its enter was not marked).
bool exitModule(uint32_t module, ModuleMark& mark);
// Whether the innermost open call on this thread is one of `module`'s.
bool innermostCallIs(uint32_t module);

}  // namespace sawtooth::tracker
