#pragma once
// One entry of a PyTorch snapshot's `segments` list (the dict PyTorch writes for a SegmentInfo)
// read into the model: address, size, stream, pool, expandable, and each block with its size,
// requested size, state and stack. Kept apart from the importer's event reading so that any
// reader of snapshots fills Trace::segments the same way.

#include <functional>
#include <string>

#include "core/io/pickle_document.h"
#include "core/model/allocator_segments.h"
#include "core/util/result.h"

namespace sawtooth {

// `intern_stack` turns a `frames` list into a stack id. `index` names the entry in messages. What
// is odd but readable (a block that is not a dict, an unknown state) is kept or skipped and told
// in `warnings`; only a segment that is not a dict is an error.
Result<SnapshotSegment> readSnapshotSegment(const pickle::Document& doc, const pickle::Value& segment, size_t index,
                                            const std::function<uint32_t(const pickle::Value&)>& intern_stack,
                                            std::string* warnings);

}  // namespace sawtooth
