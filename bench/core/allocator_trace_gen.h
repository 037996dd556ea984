#pragma once
// A long allocator trace for the replay benchmarks, made in memory by a small best-fit caching
// allocator that follows the size rules of core/analysis/allocator_rules.h and, unlike the
// replay, chooses the addresses itself: a training loop's pattern (parameters kept, activations
// born in forward and freed in backward, temporaries, two streams, batch sizes that vary, the
// cache emptied now and then), so the replay sees splits, merges and new segments throughout.

#include <cstddef>
#include <cstdint>

#include "core/model/trace.h"

namespace sawtooth::bench {

Trace makeAllocatorTrace(size_t events, uint64_t seed = 1);

}  // namespace sawtooth::bench
