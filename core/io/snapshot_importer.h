#pragma once
// PyTorch memory snapshots (torch.cuda.memory._dump_snapshot) read from a parsed pickle document:
// every device trace, frames, external annotations (as phases), allocator settings (as
// metadata), and the baseline of what was already allocated and reserved when recording began.
//
// This is the generic reader, for any shape the pickle has; io/snapshot_decoder.h reads the
// usual shapes without building the document first and falls back to this one.

#include <span>

#include "core/io/pickle_document.h"
#include "core/io/read_limits.h"
#include "core/io/snapshot_builder.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

Result<Trace> importSnapshot(const pickle::Document& doc, Progress* progress = nullptr);
Result<Trace> importSnapshot(const pickle::Document& doc, ReadBudget& budget, Progress* progress);

namespace snapshot {

// The streaming decoder's typed objects, as the walk meets them.
class Handles {
 public:
  virtual ~Handles() = default;
  // The rows of an event list, or false when `handle` is not one.
  virtual bool listRows(const pickle::Value& handle, std::span<const RowRange>& rows) const = 0;
  // The row of an event, or false when `handle` is not one.
  virtual bool eventRow(const pickle::Value& handle, uint64_t& row) const = 0;
  // The stack of a frames list that is typed or holds typed frames (a segment's block may share
  // them with an event); false when it cannot say.
  virtual bool typedStack(const pickle::Value& frames, const pickle::Document& doc, uint32_t& stack) = 0;
};

// Whether a generic list holds a typed object (a frames list the parser built around frames the
// decoder had already typed).
bool holdsTypedObject(const pickle::Value& list, const pickle::Document& doc);

// Walks the document's root into `builder`. `unrecognized` is set (with an error) when a typed
// object stands where the walk needs generic values: the caller then reads the file generically.
Status walkSnapshot(const pickle::Document& doc, Builder& builder, Handles* handles, bool& unrecognized);

}  // namespace snapshot
}  // namespace sawtooth
