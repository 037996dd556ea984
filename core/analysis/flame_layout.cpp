#include "core/analysis/flame_layout.h"

#include <algorithm>

namespace sawtooth {

std::vector<uint32_t> flamePath(const FlameGraph& graph, uint32_t node) {
  std::vector<uint32_t> path;
  for (uint32_t n = node; n < graph.nodes.size(); n = graph.nodes[n].parent) {
    path.push_back(n);
    if (path.size() > graph.nodes.size()) break;  // a cycle would be a broken graph
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<FlameRect> layoutFlame(const FlameGraph& graph, uint32_t focus, double min_width) {
  std::vector<FlameRect> rects;
  if (graph.nodes.empty()) return rects;
  if (focus >= graph.nodes.size()) focus = 0;
  const std::vector<uint32_t> path = flamePath(graph, focus);
  for (size_t i = 0; i + 1 < path.size(); ++i) rects.push_back({path[i], static_cast<int>(i), 0, 1, true});
  const double total = static_cast<double>(graph.nodes[focus].bytes);
  struct Item {
    uint32_t node;
    int depth;
    double x, width;
  };
  std::vector<Item> stack{{focus, static_cast<int>(path.size()) - 1, 0, 1}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    rects.push_back({it.node, it.depth, it.x, it.width, false});
    if (total <= 0) continue;
    double x = it.x;
    std::vector<Item> children;
    for (uint32_t child : graph.nodes[it.node].children) {
      const double w = std::max(0.0, static_cast<double>(graph.nodes[child].bytes)) / total;
      if (w > 0 && w >= min_width) children.push_back({child, it.depth + 1, x, w});
      x += w;
    }
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return rects;
}

int flameDepth(const std::vector<FlameRect>& rects) {
  int depth = 0;
  for (const FlameRect& r : rects) depth = std::max(depth, r.depth + 1);
  return depth;
}

}  // namespace sawtooth
