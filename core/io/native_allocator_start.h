#pragma once
// The allocator's state when a snapshot's trace began, for each device of a .sawtooth file, from the file's events read
// as a stream: newest first to walk back from the segments at the end (core/analysis/allocator_baseline.h), then
// forward to pin down the block sizes that walk could only guess (at most three rounds, as AllocatorHistory::build).
// Memory is bounded by the blocks and segments alive, never by the events; the states are the ones
// AllocatorHistory::build(trace, device).stateAfter(-1) gives on the whole trace, from which the summaries' segment-map
// checkpoints replay (io/native_summaries.h).

#include <map>
#include <utility>

#include "core/analysis/allocator_rules.h"
#include "core/analysis/allocator_state.h"
#include "core/io/sqlite_db.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

using AllocatorStarts = std::map<DeviceId, std::pair<AllocatorState, AllocatorSettings>>;

// `tables`: the file's tables without its events (readNative with EventReadOptions::events false): its segments,
// allocator settings, devices, counters and stacks. Devices outside 16 bits are left out (as the summaries leave them).
// Errors name the file and the event.
Result<AllocatorStarts> streamedAllocatorStarts(sql::Database& db, const Trace& tables, Progress* progress = nullptr);

}  // namespace sawtooth
