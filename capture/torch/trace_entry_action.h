#pragma once
// PyTorch's caching-allocator trace entry action as Sawtooth's Action: decoded once for both
// users of the allocator's trace, the workloads' in-process source (allocator_sources.cpp) and the
// tracker injected into recorded programs (capture/inject/torch_tracker.cpp). LibTorch headers.

#include <optional>

#include <c10/core/CachingDeviceAllocator.h>

#include "core/model/action.h"

namespace sawtooth::capture {

inline std::optional<Action> actionOf(c10::CachingDeviceAllocator::TraceEntry::Action a) {
  using TraceEntry = c10::CachingDeviceAllocator::TraceEntry;
  switch (a) {
    case TraceEntry::ALLOC: return Action::Alloc;
    case TraceEntry::FREE_REQUESTED: return Action::FreeRequested;
    case TraceEntry::FREE_COMPLETED: return Action::FreeCompleted;
    case TraceEntry::SEGMENT_ALLOC: return Action::SegmentAlloc;
    case TraceEntry::SEGMENT_FREE: return Action::SegmentFree;
    case TraceEntry::SEGMENT_MAP: return Action::SegmentMap;
    case TraceEntry::SEGMENT_UNMAP: return Action::SegmentUnmap;
    case TraceEntry::SNAPSHOT: return Action::Snapshot;
    case TraceEntry::OOM: return Action::Oom;
    default: return std::nullopt;  // USER_DEFINED and whatever a later PyTorch adds
  }
}

}  // namespace sawtooth::capture
