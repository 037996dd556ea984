#include "core/analysis/module_icicle.h"

#include <algorithm>

namespace sawtooth {

ModuleIcicle buildModuleIcicle(const ModuleMemory& memory) {
  ModuleIcicle out;
  FlameGraph& g = out.graph;
  auto add = [&](uint32_t parent, std::string label, int64_t bytes, int64_t self_bytes, uint32_t row,
                 std::optional<Category> category) {
    const auto id = static_cast<uint32_t>(g.nodes.size());
    g.nodes.push_back(FlameNode{kNoFrame, std::move(label), bytes, self_bytes, 0, parent, {}});
    if (parent != UINT32_MAX) g.nodes[parent].children.push_back(id);
    out.row.push_back(row);
    out.category.push_back(category);
    return id;
  };
  add(UINT32_MAX, "(all)", memory.live_bytes, 0, UINT32_MAX, std::nullopt);
  // Rows come parent first, so each row's parent already has its node.
  std::vector<uint32_t> node_of(memory.rows.size(), UINT32_MAX);
  for (uint32_t r = 0; r < memory.rows.size(); ++r) {
    const ModuleRow& row = memory.rows[r];
    if (row.total.total() <= 0) continue;
    const uint32_t parent = row.parent_row < node_of.size() ? node_of[row.parent_row] : 0;
    if (parent == UINT32_MAX) continue;
    std::string label = row.name;
    if (row.parent_row < memory.rows.size()) {
      // Below its parent a module shows the last part of its name: "h.3" under "transformer".
      const std::string& p = memory.rows[row.parent_row].name;
      if (label.size() > p.size() + 1 && label.starts_with(p) && label[p.size()] == '.') label = label.substr(p.size() + 1);
    }
    node_of[r] = add(parent, std::move(label), row.total.total(), row.self.total(), r, std::nullopt);
    g.nodes[node_of[r]].count = row.allocations;
  }
  // Each module's own bytes as category leaves beside its submodules (largest first, as all nodes).
  for (uint32_t r = 0; r < memory.rows.size(); ++r) {
    if (node_of[r] == UINT32_MAX) continue;
    const ModuleRow& row = memory.rows[r];
    for (int c = 0; c < kCategoryCount; ++c) {
      const auto category = static_cast<Category>(c);
      if (row.self[category] > 0)
        add(node_of[r], std::string(name(category)), row.self[category], row.self[category], r, category);
    }
  }
  for (FlameNode& n : g.nodes)
    std::stable_sort(n.children.begin(), n.children.end(),
                     [&](uint32_t a, uint32_t b) { return g.nodes[a].bytes > g.nodes[b].bytes; });
  return out;
}

}  // namespace sawtooth
