#pragma once
// `sawtooth-trace convert` of a PyTorch snapshot as a stream (issue 25, item 4): memory bounded by the summaries and
// the pickle's memo, never by the events. The file (an uncompressed pickle, read where it lies in the page cache) is
// decoded twice: first for what the events need before any is written (the time they count from, the phases the
// annotations at the file's end make, the baselines, the stacks and segments, and that every value is good), then again
// with each event written as the pickle lists it. The summaries are then built from the written events
// (io/summary_cache.h: summariseWritten), the allocator's starting state streamed from them too.
//
// A file the stream cannot take (compressed, a shape only the generic reader follows, events listed out of order, a
// value to refuse) is reported with `whole` set: convert it from the whole trace in memory (loadTrace + writeNative),
// which also words any refusal with the event's place.

#include <string>

#include "core/io/read_limits.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

Status convertSnapshotStreaming(const std::string& in, const std::string& out, const ReadLimits& limits, bool& whole,
                                Progress* progress = nullptr);

}  // namespace sawtooth
