#include "core/analysis/module_band.h"

#include <algorithm>

#include "core/analysis/module_memory.h"

namespace sawtooth {
namespace {

// The first level (counted in modules that ran) with at least three modules that ran; else the
// deepest level there is. Each module's level, or -1 for one that never ran.
std::vector<int> blockLevels(const ModuleTree& tree, const std::vector<bool>& ran, int* chosen) {
  std::vector<int> level(tree.size(), -1);
  std::vector<int> count;
  for (uint32_t m = 0; m < tree.size(); ++m) {
    if (!ran[m]) continue;
    int above = 0;
    uint32_t depth = 0;
    for (uint32_t a = tree.modules[m].parent; a < m && depth < tree.size(); a = tree.modules[a].parent, ++depth)
      if (ran[a]) ++above;
    level[m] = above;
    if (count.size() <= static_cast<size_t>(above)) count.resize(static_cast<size_t>(above) + 1, 0);
    ++count[static_cast<size_t>(above)];
  }
  *chosen = count.empty() ? -1 : static_cast<int>(count.size()) - 1;
  for (size_t l = 1; l < count.size(); ++l)
    if (count[l] >= 3) {
      *chosen = static_cast<int>(l);
      break;
    }
  return level;
}

double indexAt(const SeriesAxis* axis, int64_t t_ns) {
  if (!axis || axis->size() == 0) return 0;
  const auto& t = axis->t_ns;
  const size_t p = static_cast<size_t>(std::lower_bound(t.begin(), t.end(), t_ns) - t.begin());
  if (p >= t.size()) return static_cast<double>(axis->index(t.size() - 1)) + 1;
  return static_cast<double>(axis->index(p));
}

}  // namespace

ModuleBand moduleBand(const TraceAnalysis& analysis, DeviceId device) {
  ModuleBand band;
  const Trace& trace = analysis.trace();
  const ModuleTree& tree = trace.modules;
  if (tree.empty()) return band;
  std::vector<ModuleCall> calls;
  for (const ModuleCall& c : tree.calls)
    if (c.pass != Pass::Backward) calls.push_back(c);
  for (ModuleCall& c : backwardStretches(trace)) calls.push_back(c);
  std::vector<bool> ran(tree.size(), false);
  for (const ModuleCall& c : calls)
    if (c.module < tree.size()) ran[c.module] = true;
  int chosen = -1;
  const std::vector<int> level = blockLevels(tree, ran, &chosen);

  std::vector<uint32_t> block_of(tree.size(), UINT32_MAX);
  for (uint32_t m = 0; m < tree.size(); ++m) {
    if (level[m] != chosen) continue;
    block_of[m] = static_cast<uint32_t>(band.blocks.size());
    std::string name = tree.fullName(m);
    const std::string& root = tree.modules[tree.root(m)].name;
    std::string label = name.size() > root.size() + 1 && name.compare(0, root.size() + 1, root + ".") == 0
                            ? name.substr(root.size() + 1)
                            : name;
    band.blocks.push_back({m, std::move(name), std::move(label)});
  }
  const DeviceAnalysis* d = analysis.device(device);
  const SeriesAxis* axis = d ? d->series.allocator.get() : nullptr;
  for (const ModuleCall& c : calls) {
    if (c.module >= tree.size() || block_of[c.module] == UINT32_MAX) continue;
    band.spans.push_back(BandSpan{block_of[c.module], c.pass, c.begin_ns, std::max(c.end_ns, c.begin_ns),
                                   indexAt(axis, c.begin_ns), indexAt(axis, std::max(c.end_ns, c.begin_ns))});
  }
  std::stable_sort(band.spans.begin(), band.spans.end(),
                   [](const BandSpan& a, const BandSpan& b) { return a.begin_ns < b.begin_ns; });
  return band;
}

}  // namespace sawtooth
