#pragma once
// PyTorch memory snapshots (torch.cuda.memory._dump_snapshot): every device trace, frames,
// external annotations (as phases), allocator settings (as metadata), and the baseline of what
// was already allocated and reserved when recording began.

#include "core/io/pickle_document.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

Result<Trace> importSnapshot(const pickle::Document& doc, Progress* progress = nullptr);

}  // namespace sawtooth
