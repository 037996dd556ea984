#pragma once
// Where each node of a flame graph goes when it is drawn as an icicle (heaptrack's flame graph):
// the focused node and its ancestors take the full width, one row each, and below it every node
// is as wide as its share of the focused node's bytes, children left to right, largest first.
// Clicking a node to zoom is laying out again with it as the focus.

#include <cstdint>
#include <vector>

#include "core/analysis/flame_graph.h"

namespace sawtooth {

struct FlameRect {
  uint32_t node = 0;
  int depth = 0;     // row: 0 is the root
  double x = 0;      // left edge, as a fraction of the width
  double width = 0;  // as a fraction of the width
  bool ancestor = false;  // above the focus (drawn full width; clicking one zooms out to it)
};

// The root's path to `node`, root first, `node` last.
std::vector<uint32_t> flamePath(const FlameGraph& graph, uint32_t node);

// Rectangles of the focus's ancestors, the focus and its descendants; nodes narrower than
// `min_width` (a fraction: a pixel of the view) are left out with their subtrees.
std::vector<FlameRect> layoutFlame(const FlameGraph& graph, uint32_t focus = 0, double min_width = 0);

// The deepest row of a layout, plus one.
int flameDepth(const std::vector<FlameRect>& rects);

}  // namespace sawtooth
