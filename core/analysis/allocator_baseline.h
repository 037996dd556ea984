#pragma once
// The allocator's state when a trace began. A PyTorch snapshot's trace starts mid-run and its
// segments are taken at the end; walking the events backwards from those segments gives the
// segments held at the start and the blocks then in use (their addresses and requested sizes).
// A block that was in use at the start and still is at the end has its size in the snapshot; one
// freed during the trace does not, and gets the size the allocator's rules allow in the room it
// has (exact in the small pool and with expandable segments; in the large pool a block may keep
// up to 1 MiB unsplit, so it is marked inferred with its largest possible size).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/allocator_rules.h"
#include "core/analysis/allocator_state.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

struct AllocatorStart {
  AllocatorState state;         // position -1
  size_t inferred_blocks = 0;   // blocks whose size is a guess
  int64_t inferred_bytes_max = 0;  // how many bytes those guesses could be short by, together
  size_t anomalies = 0;
  std::vector<std::string> notes;  // the first anomalies, in words
};

// `events`: the device's allocator events (global indices, in order). `known_sizes` overrides
// the inferred size of blocks at the given start addresses (what a first replay pinned down).
// Without the snapshot's segments (Trace::segments_known false) the start is empty: right for
// recordings that began with the process, and refused when the trace holds frees of blocks it
// never allocated or no segment events at all (a torch.profiler trace).
Result<AllocatorStart> allocatorStart(const Trace& trace, int16_t device, const std::vector<uint64_t>& events,
                                      const AllocatorSettings& settings,
                                      const std::map<uint64_t, int64_t>& known_sizes = {});

// The same walk for a caller that hands over the device's allocator events itself, newest first
// (io/native_allocator_start.h streams them from a file instead of holding the trace). `trace`
// gives the snapshot's segments only, and is not kept.
class AllocatorStartWalk {
 public:
  AllocatorStartWalk(const Trace& trace, int16_t device, const AllocatorSettings& settings);
  ~AllocatorStartWalk();
  AllocatorStartWalk(AllocatorStartWalk&&) noexcept;
  AllocatorStartWalk& operator=(AllocatorStartWalk&&) noexcept;
  // Undoes one event (`index`: its global event index); newest first.
  void undo(const Event& e, uint64_t index);
  // The start, once every event was undone.
  AllocatorStart finish(const std::map<uint64_t, int64_t>& known_sizes = {});

 private:
  class StartBuilder;
  std::unique_ptr<StartBuilder> builder_;
};

}  // namespace sawtooth
