#pragma once
// Live bytes by call stack, as heaptrack's flame graph draws them: a tree from the outermost
// frame inwards whose every node holds the bytes alive under it; and the same bytes as a table
// by call site (the user's innermost frame) and category. Both from a LiveSet, so they sum to
// its total; allocations without frames and unattributed bytes form the "(no stack)" node/row.

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/call_sites.h"
#include "core/analysis/live_allocations.h"
#include "core/model/trace.h"

namespace sawtooth {

enum class FrameSelection : uint8_t {
  All,     // every frame PyTorch recorded (Python and C++)
  Python,  // Python frames only (when a stack has none, its non-machinery frames)
};

struct FlameNode {
  uint32_t frame = kNoFrame;  // kNoFrame: the root, or the "(no stack)" node
  std::string label;          // "train.py:42 forward", "(all)", "(no stack)"
  int64_t bytes = 0;          // alive in this node and below it
  int64_t self_bytes = 0;     // alive with this frame innermost
  int64_t count = 0;          // allocations
  uint32_t parent = UINT32_MAX;
  std::vector<uint32_t> children;  // largest first
};

struct FlameGraph {
  std::vector<FlameNode> nodes;  // nodes[0] is the root: everything alive
};

FlameGraph buildFlameGraph(const Trace& trace, const LiveSet& live, SiteNamer& names,
                           FrameSelection selection = FrameSelection::Python);

struct SiteRow {
  std::string site;  // the call site's label, or "(no stack)"
  std::string file;
  std::string function;
  int64_t line = 0;
  Category category = Category::Unknown;
  int64_t bytes = 0;
  int64_t count = 0;
};

// Rows by call site and category, largest first (ties by site).
std::vector<SiteRow> siteTable(const LiveSet& live, SiteNamer& names);

}  // namespace sawtooth
