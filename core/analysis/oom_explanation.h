#pragma once
// Why an allocation failed, from the allocator's state at the out-of-memory event: the request
// (rounded, on its stream and pool) beside the free memory of that pool and stream and its
// largest free block, and the blocks in use that stand in the way — per segment of that pool and
// stream, the window of neighbouring blocks as large as the request with the fewest bytes in use.
// "Asked for 2.0 GB on stream 0 (large pool): 7.0 GB cached free there, but at most 1.9 GB
// contiguous; the device had 0.4 GB free."
// PyTorch has already given back every unsplit cached segment when it records the OOM, so what
// free memory is left lies between blocks in use.

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/allocator_history.h"
#include "core/analysis/call_sites.h"

namespace sawtooth {

struct OomObstacle {
  uint64_t segment = 0;        // the segment's address
  uint64_t window_address = 0; // where the request would fit if the blocks in use there were gone
  int64_t window_bytes = 0;
  int64_t blocking_bytes = 0;  // bytes in use inside the window
  std::vector<BlockView> blocks;  // the blocks in use inside the window
};

struct OomExplanation {
  uint64_t event = 0;
  int64_t position = 0;
  int64_t requested = 0;       // as the OOM event records it (rounded)
  int64_t device_free = 0;     // cudaMemGetInfo's free bytes at the failure
  uint64_t stream = 0;
  bool small_pool = false;
  int64_t reserved = 0;
  int64_t allocated = 0;       // block sizes in use
  int64_t cached_free = 0;     // free in every pool and stream
  int64_t pool_free = 0;       // free in the request's pool and stream
  int64_t largest_free = 0;    // the largest free block there
  std::vector<PoolFree> pools;
  std::vector<OomObstacle> in_the_way;  // at most three, fewest bytes in use first
  std::string summary;
  std::vector<std::string> details;
};

// The explanation of the OOM event at `position` (which must be one).
OomExplanation explainOom(const Trace& trace, const AllocatorHistory& history, int64_t position, SiteNamer& names);
// The same from the OOM event `e` (global index `event`, allocator position `position`) and the
// allocator's state it failed in, wherever that state came from (a replay from a stored state).
OomExplanation explainOom(const Event& e, uint64_t event, int64_t position, const AllocatorState& state,
                          const AllocatorSettings& settings, SiteNamer& names);
// Every OOM event of the history's device.
std::vector<OomExplanation> explainOoms(const Trace& trace, const AllocatorHistory& history);

}  // namespace sawtooth
