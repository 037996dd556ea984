#include "core/analysis/summary_pyramid.h"

#include <algorithm>

namespace sawtooth::summary {
namespace {

NodeValues envelope(std::span<const int64_t> values) {
  NodeValues acc = single(values[0]);
  for (size_t i = 1; i < values.size(); ++i) acc = combine(acc, single(values[i]));
  return acc;
}

NodeValues fold(std::span<const NodeValues> nodes) {
  NodeValues acc = nodes[0];
  for (size_t i = 1; i < nodes.size(); ++i) acc = combine(acc, nodes[i]);
  return acc;
}

}  // namespace

int topLevel(int64_t points) {
  int level = 0;
  while (level + 1 < kMaxLevels && nodePoints(level) < points) ++level;
  return level;
}

NodeValues combine(const NodeValues& a, const NodeValues& b) {
  const bool min_from_a = a.min <= b.min;
  const bool max_from_a = a.max >= b.max;
  NodeValues out;
  out.min = min_from_a ? a.min : b.min;
  out.max = max_from_a ? a.max : b.max;
  if (min_from_a == max_from_a) out.min_first = min_from_a ? a.min_first : b.min_first;
  else out.min_first = min_from_a;  // the minimum in a, the maximum in b: the minimum first
  out.last = b.last;
  return out;
}

NodeValues single(int64_t value) { return NodeValues{value, value, value, true}; }

NodeValues shifted(const NodeValues& n, int64_t delta) {
  return NodeValues{n.min + delta, n.max + delta, n.last + delta, n.min_first};
}

void PyramidBuilder::closeLeaf(const Sink& closed) {
  NodeValues node = envelope(leaf_);
  closed(NodeOut{0, (points_ - 1) / kLeafPoints, kLeafPoints, node});
  leaf_.clear();
  for (int level = 1; level < kMaxLevels; ++level) {
    if (children_.size() <= static_cast<size_t>(level)) children_.resize(static_cast<size_t>(level) + 1);
    auto& kids = children_[static_cast<size_t>(level)];
    kids.push_back(node);
    if (static_cast<int64_t>(kids.size()) < kFanout) return;
    node = fold(kids);
    kids.clear();
    closed(NodeOut{level, (points_ - 1) / nodePoints(level), nodePoints(level), node});
  }
}

void PyramidBuilder::openNodes(const Sink& sink) const {
  if (points_ == 0) return;
  const int top = topLevel(points_);
  bool has_below = !leaf_.empty();
  NodeValues below;
  if (has_below) {
    below = envelope(leaf_);
    sink(NodeOut{0, points_ / kLeafPoints, static_cast<int64_t>(leaf_.size()), below});
  }
  for (int level = 1; level <= top; ++level) {
    const bool has_kids = static_cast<size_t>(level) < children_.size() && !children_[static_cast<size_t>(level)].empty();
    if (!has_kids && !has_below) continue;  // this level's last node is closed (and was handed over)
    NodeValues node = has_kids ? fold(children_[static_cast<size_t>(level)]) : below;
    if (has_kids && has_below) node = combine(node, below);
    const int64_t span = nodePoints(level);
    sink(NodeOut{level, points_ / span, points_ % span, node});
    below = node;
    has_below = true;
  }
}

void PyramidBuilder::shift(int64_t from, int64_t to, int64_t delta,
                           const std::function<NodeValues(int, int64_t)>& straddled) {
  to = std::min(to, points_);
  if (from >= to || delta == 0) return;
  const int64_t leaf_start = leafStart();
  for (size_t i = 0; i < leaf_.size(); ++i) {
    const int64_t g = leaf_start + static_cast<int64_t>(i);
    if (g >= from && g < to) leaf_[i] += delta;
  }
  for (size_t level = 1; level < children_.size(); ++level) {
    auto& kids = children_[level];
    if (kids.empty()) continue;
    const int64_t below = nodePoints(static_cast<int>(level) - 1);
    const int64_t first = points_ / nodePoints(static_cast<int>(level)) * kFanout;
    for (size_t i = 0; i < kids.size(); ++i) {
      const int64_t g = first + static_cast<int64_t>(i);
      const int64_t lo = g * below, hi = lo + below;
      if (hi <= from || lo >= to) continue;
      if (lo >= from && hi <= to) kids[i] = shifted(kids[i], delta);
      else kids[i] = straddled(static_cast<int>(level) - 1, g);
    }
  }
  if (to >= points_) current_ += delta;
}

}  // namespace sawtooth::summary
