#pragma once
// The size rules of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, 2.11),
// and the settings that change them, read from a snapshot's `allocator_settings`. The trace
// carries each request's size; these rules give the block the allocator made of it.

#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "core/model/trace.h"

namespace sawtooth {

inline constexpr int64_t kMinBlockSize = 512;            // every block is a multiple of this
inline constexpr int64_t kSmallSize = 1 << 20;           // largest request of the small pool
inline constexpr int64_t kSmallBuffer = 2 << 20;         // small pool segments; expandable small pages
inline constexpr int64_t kMinLargeAlloc = 10 << 20;      // below this a large request gets a large_segment_size segment
inline constexpr int64_t kRoundLarge = 2 << 20;          // larger requests get segments rounded to this
inline constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
// Larger than any device (2^60 bytes): sizes above it come from corrupt or hostile files and are
// left as they are rather than rounded into overflow.
inline constexpr int64_t kHostileSize = int64_t{1} << 60;

struct AllocatorSettings {
  int64_t max_split_size = kUnlimited;         // blocks at least this large are never split
  int64_t max_non_split_rounding = 20 << 20;   // how much larger an unsplit oversize block may be
  int64_t large_segment_size = 20 << 20;       // segment for large requests under 10 MiB; expandable large pages
  bool expandable_segments = false;
  // Divisions between powers of two for sizes in [1,2) MiB, [2,4) MiB, ..., [32 GiB, ...); 0 or 1: none.
  std::array<int64_t, 16> roundup_power2_divisions{};
  bool from_trace = false;  // read from the trace (otherwise PyTorch's defaults)
};

// From the trace's `allocator.*` metadata (a snapshot's allocator_settings, including the
// PYTORCH_CUDA_ALLOC_CONF string for the keys the dict leaves out); defaults where absent.
AllocatorSettings allocatorSettings(const Trace& trace);
// Applies one PYTORCH_CUDA_ALLOC_CONF string ("max_split_size_mb:64,expandable_segments:True").
void applyAllocConf(AllocatorSettings& settings, const std::string& conf);

// round_size: what a request becomes (at least 512 bytes, a multiple of 512, or the next
// power-of-two division when configured).
int64_t roundSize(int64_t requested, const AllocatorSettings& settings);
// The pool a rounded size is served from.
inline bool isSmallPoolSize(int64_t rounded) { return rounded <= kSmallSize; }
// get_allocation_size: the segment a new cudaMalloc gets for a rounded request.
int64_t segmentSizeFor(int64_t rounded, const AllocatorSettings& settings);
// should_split: whether a free block of `block_size` is split when `rounded` bytes are taken
// from it (otherwise the whole block is handed out).
bool shouldSplit(int64_t block_size, int64_t rounded, bool small_pool, const AllocatorSettings& settings);
// The largest block a request may be handed whole: rounded + up to 1 MiB (the remainder a large
// block keeps unsplit), or up to max_non_split_rounding more for an oversize request; exactly
// rounded when every remainder is split (small pool, expandable segments).
int64_t largestUnsplitBlock(int64_t rounded, bool small_pool, const AllocatorSettings& settings);

}  // namespace sawtooth
