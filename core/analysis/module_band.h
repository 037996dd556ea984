#pragma once
// The band under the timeline that says which top-level block of the model is running (issue 23):
// each call of a block — forward, recompute, and backward's stretches (module_memory.h) — as a
// span on the recording's clock and on a device's allocator-event axis, so that the band follows
// the timeline in either unit.
//
// The top-level blocks: the modules at the first level below the roots where at least three
// modules ran, counting levels by the modules that ran (a container never called itself, such as
// a ModuleList, is passed through): GPT-2's "transformer.h.0" … "h.11" beside "wte", "ln_f";
// the anatomy MLP's "Sequential.0" … "Sequential.11".

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/trace_analysis.h"

namespace sawtooth {

struct BandSpan {
  uint32_t block = 0;  // index into ModuleBand::blocks
  Pass pass = Pass::Forward;
  int64_t begin_ns = 0, end_ns = 0;
  double begin_index = 0, end_index = 0;  // on the device's allocator-event axis
};

struct ModuleBand {
  struct Block {
    uint32_t module = kNoModule;
    std::string name;   // full name, root first
    std::string label;  // what the band writes: the name below the root ("transformer.h.3")
  };
  std::vector<Block> blocks;
  std::vector<BandSpan> spans;  // by begin time
};

// For the device's allocator-event axis (a device the analysis lacks: the spans' indices are 0).
ModuleBand moduleBand(const TraceAnalysis& analysis, DeviceId device);

}  // namespace sawtooth
