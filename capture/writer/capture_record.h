#pragma once
// What every capture source hands to the writer thread: one fixed-size record, stamped on the
// session's clock. Copying one never allocates (the optional stack context is a shared_ptr copy).

#include <chrono>
#include <cstdint>
#include <memory>

#include "core/model/action.h"
#include "core/model/event_store.h"

namespace sawtooth::capture {

enum class RecordKind : uint8_t {
  Memory,      // an allocator, host or driver memory event
  Sample,      // device memory in use (size) of total (addr)
  PhaseBegin,  // id = phase id
  PhaseEnd,
  Tag,         // the block at addr belongs to `category`
  RunBegin,    // id = run id
  RunEnd,
  StepBegin,   // addr = the step's number (0, 1, ... in the order the workload runs them)
  ModuleEnter, // module (with its pass) begins a call on thread `stream`
  ModuleExit,  // module's innermost open call on thread `stream` ends
};

struct CaptureRecord {
  int64_t t_ns = 0;
  uint64_t addr = 0;
  int64_t size = 0;
  uint64_t stream = 0;
  uint32_t id = 0;
  int16_t device = 0;
  RecordKind kind = RecordKind::Memory;
  Source source = Source::Allocator;
  Action action = Action::Alloc;
  Category category = Category::Unknown;
  // The module the bytes belong to and the pass that made them (a Tag's: the block's owner). For
  // a Memory record they are the source's word only when module_known: otherwise the writer
  // attributes the event to the innermost module running when it happened.
  uint32_t module = kNoModule;
  Pass pass = Pass::None;
  bool module_known = false;
  // Autograd's link from a backward node to the forward that made it (Node::thread_id and
  // Node::sequence_nr, at::RecordFunction::currentThreadId's small numbers): on a ModuleEnter or
  // ModuleExit, the thread's next sequence number when the call began or ended; on a Memory
  // record made while autograd ran a node, that node's. The writer keeps a SequenceMap of the
  // calls (sequence_map.h) and gives such a record to the module whose call made the node, unless
  // a module is open on the thread (a recompute inside backward).
  bool node_known = false;
  uint32_t node_thread = 0;
  uint64_t node_seq = 0;
  std::shared_ptr<void> context;  // a c10::GatheredContext when C++ stacks are captured
};

// The one clock every source is stamped with: CLOCK_MONOTONIC in nanoseconds.
inline int64_t clockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace sawtooth::capture
