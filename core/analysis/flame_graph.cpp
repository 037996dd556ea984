#include "core/analysis/flame_graph.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/analysis/frame_filter.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

// The frames of a stack to draw, outermost first.
std::vector<uint32_t> pathOf(const StackTable& stacks, uint32_t stack, FrameSelection selection) {
  std::vector<uint32_t> path;
  if (stack == kNoStack || stack >= stacks.stackCount()) return path;
  const auto frames = stacks.stack(stack);
  if (selection == FrameSelection::All) {
    for (uint32_t id : frames)
      if (!isRecorderFrame(stacks.frame(id))) path.push_back(id);
  } else {
    for (uint32_t id : frames)
      if (isPythonFrame(stacks.frame(id)) && !isRecorderFrame(stacks.frame(id))) path.push_back(id);
    if (path.empty()) path = interestingFrames(stacks, stack, frames.size());
  }
  std::reverse(path.begin(), path.end());  // PyTorch writes the innermost frame first
  return path;
}

}  // namespace

FlameGraph buildFlameGraph(const Trace& trace, const LiveSet& live, SiteNamer& names, FrameSelection selection) {
  FlameGraph g;
  g.nodes.push_back(FlameNode{kNoFrame, "(all)", 0, 0, 0, UINT32_MAX, {}});
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> child_of;  // (parent, frame) -> node
  std::unordered_map<uint32_t, std::vector<uint32_t>> paths;   // per stack
  uint32_t no_stack = UINT32_MAX;
  auto add = [&](const std::vector<uint32_t>& path, int64_t bytes, int64_t count) {
    uint32_t node = 0;
    g.nodes[0].bytes = wrappingAdd(g.nodes[0].bytes, bytes);
    g.nodes[0].count += count;
    if (path.empty()) {
      if (no_stack == UINT32_MAX) {
        no_stack = static_cast<uint32_t>(g.nodes.size());
        g.nodes.push_back(FlameNode{kNoFrame, std::string(kNoStackSite), 0, 0, 0, 0, {}});
        g.nodes[0].children.push_back(no_stack);
      }
      node = no_stack;
      g.nodes[node].bytes = wrappingAdd(g.nodes[node].bytes, bytes);
      g.nodes[node].count += count;
    }
    for (uint32_t frame : path) {
      auto [it, added] = child_of.try_emplace({node, frame}, static_cast<uint32_t>(g.nodes.size()));
      if (added) {
        g.nodes.push_back(FlameNode{frame, names.frameLabel(frame), 0, 0, 0, node, {}});
        g.nodes[node].children.push_back(it->second);
      }
      node = it->second;
      g.nodes[node].bytes = wrappingAdd(g.nodes[node].bytes, bytes);
      g.nodes[node].count += count;
    }
    g.nodes[node].self_bytes = wrappingAdd(g.nodes[node].self_bytes, bytes);
  };
  for (const LiveAllocation& a : live.allocations) {
    auto [it, added] = paths.try_emplace(a.stack);
    if (added) it->second = pathOf(trace.stacks, a.stack, selection);
    add(it->second, a.bytes, 1);
  }
  if (live.unattributed != 0) add({}, live.unattributed, 0);
  for (FlameNode& n : g.nodes)
    std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
      return g.nodes[a].bytes != g.nodes[b].bytes ? g.nodes[a].bytes > g.nodes[b].bytes : g.nodes[a].label < g.nodes[b].label;
    });
  return g;
}

std::vector<SiteRow> siteTable(const LiveSet& live, SiteNamer& names) {
  std::map<std::pair<std::string, Category>, SiteRow> rows;
  auto add = [&](const CallSite& site, Category category, int64_t bytes, int64_t count) {
    SiteRow& r = rows[{site.label, category}];
    if (r.site.empty()) r = SiteRow{site.label, site.file, site.function, site.line, category, 0, 0};
    r.bytes = wrappingAdd(r.bytes, bytes);
    r.count += count;
  };
  for (const LiveAllocation& a : live.allocations) add(names.site(a.stack), a.category, a.bytes, 1);
  if (live.unattributed != 0) add(names.site(kNoStack), Category::Unknown, live.unattributed, 0);
  std::vector<SiteRow> out;
  out.reserve(rows.size());
  for (auto& [key, r] : rows) out.push_back(std::move(r));
  std::stable_sort(out.begin(), out.end(), [](const SiteRow& a, const SiteRow& b) { return a.bytes > b.bytes; });
  return out;
}

}  // namespace sawtooth
