#pragma once
// The level-of-detail pyramid a .sawtooth file keeps for each series (format 3,
// docs/sawtooth-format.md): fixed nodes over the points of the series' axis, 128 points a leaf and
// 8 children a node above, each with the envelope of its points (min, max, which comes first) and
// the value in force at its end. A node's number and level say which points it covers, so the
// nodes of any range are found without reading anything else, and a node, once its points are
// all there, is final — except where a category learnt later moves bytes from one category to
// another over a range of points (shift()).
//
// This is the in-memory part that grows point by point: the open node of each level (the leaf's
// values, the envelopes of the closed children of the nodes above), handing each node to a sink as
// it closes, and every open node when asked (flush), so that what is written covers every point
// added so far.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace sawtooth::summary {

inline constexpr int64_t kLeafPoints = 128;
inline constexpr int64_t kFanout = 8;
inline constexpr int kMaxLevels = 14;  // 128 · 8^13 points: far beyond any file

// Points a node of `level` covers (the last node of a level may hold fewer).
constexpr int64_t nodePoints(int level) {
  int64_t n = kLeafPoints;
  for (int i = 0; i < level; ++i) n *= kFanout;
  return n;
}
// The level whose node 0 covers every one of `points` points (0 for up to 128).
int topLevel(int64_t points);

struct NodeValues {
  int64_t min = 0;
  int64_t max = 0;
  int64_t last = 0;        // the value in force after the node's last point
  bool min_first = true;   // the minimum occurs no later than the maximum
  bool operator==(const NodeValues&) const = default;
};
// The envelope of a followed by b (b's last).
NodeValues combine(const NodeValues& a, const NodeValues& b);
NodeValues single(int64_t value);
// Every value of the node moved by `delta` (a range of points all inside the shift).
NodeValues shifted(const NodeValues& n, int64_t delta);

// A node handed to the sink: level, number, values, and how many points it holds now.
struct NodeOut {
  int level = 0;
  int64_t node = 0;
  int64_t points = 0;
  NodeValues values;
};

class PyramidBuilder {
 public:
  using Sink = std::function<void(const NodeOut&)>;

  // Adds a point; `closed(const NodeOut&)` gets each node this completes.
  template <typename Closed>
  void add(int64_t value, Closed&& closed) {
    leaf_.push_back(value);
    ++points_;
    current_ = value;
    if (static_cast<int64_t>(leaf_.size()) == kLeafPoints) closeLeaf(Sink(std::forward<Closed>(closed)));
  }
  // Every open node (a partial one per level up to the top), for a flush.
  void openNodes(const Sink& sink) const;
  int64_t points() const { return points_; }
  int64_t current() const { return current_; }

  // Values of points [from, to) moved by delta, in what this builder holds: the open leaf's
  // values and the closed children it keeps of each open node. A child wholly inside the range
  // moves; one that straddles an end is replaced by `straddled(level, node)` (the caller has
  // recomputed it where it keeps closed nodes). The running value moves when `to` is past the end.
  void shift(int64_t from, int64_t to, int64_t delta, const std::function<NodeValues(int, int64_t)>& straddled);

  // The open leaf's values (the last points added), for recomputing a leaf after a shift.
  std::span<const int64_t> leafValues() const { return leaf_; }
  int64_t leafStart() const { return points_ - static_cast<int64_t>(leaf_.size()); }

 private:
  void closeLeaf(const Sink& closed);
  std::vector<int64_t> leaf_;                         // values of the open leaf's points
  std::vector<std::vector<NodeValues>> children_;     // [level]: closed children of the open node (level ≥ 1)
  int64_t points_ = 0;
  int64_t current_ = 0;
};

}  // namespace sawtooth::summary
