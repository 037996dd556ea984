#pragma once
// Which module's forward made an autograd node, from the node's own link to its forward: its
// sequence number and the thread that ran that forward (Node::sequence_nr, Node::thread_id, as
// PyTorch's profiler pairs a backward op with its forward op). The tracker opens an interval of
// sequence numbers when a module's call begins on a thread and closes it when the call ends;
// every node that call made has a number inside it. Calls on one thread nest, so the innermost
// call that holds a number is found from the last one begun at or before it, up its parents.
// Plain C++: the tracker's sending thread resolves its backward entries with it, off the
// allocator's lock.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace sawtooth::capture {

class SequenceMap {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit SequenceMap(size_t max_per_thread = size_t{1} << 18) : max_per_thread_(max_per_thread) {}

  // A call of `module` begins on `thread` when its next sequence number is `seq`.
  void open(uint64_t thread, uint32_t module, uint64_t seq) {
    Thread& t = threads_[thread];
    const uint64_t parent = t.open.empty() ? kNoIndex : t.open.back();
    t.intervals.push_back({seq, UINT64_MAX, parent, module});
    t.open.push_back(t.first + t.intervals.size() - 1);
    while (t.intervals.size() > max_per_thread_) {  // the oldest calls' backward ran long ago
      t.intervals.pop_front();
      ++t.first;
    }
  }

  // The innermost open call of `module` on `thread` ends at `seq` (with any left open inside it).
  void close(uint64_t thread, uint32_t module, uint64_t seq) {
    auto it = threads_.find(thread);
    if (it == threads_.end()) return;
    Thread& t = it->second;
    for (size_t k = t.open.size(); k-- > 0;) {
      Interval* call = t.at(t.open[k]);
      if (!call || call->module != module) continue;
      for (size_t j = k; j < t.open.size(); ++j)
        if (Interval* inner = t.at(t.open[j])) inner->end = seq;
      t.open.resize(k);
      return;
    }
  }

  // The module whose call on `thread` made the node numbered `seq`; kNone when none did.
  uint32_t find(uint64_t thread, uint64_t seq) const {
    auto it = threads_.find(thread);
    if (it == threads_.end() || it->second.intervals.empty()) return kNone;
    const Thread& t = it->second;
    // Begins never decrease on one thread: the last call begun at or before seq. Backward asks for
    // the calls of the forward just run, at the end of a long history: the range is narrowed by
    // doubling steps back from the end first, so that a lookup touches the recent calls only.
    auto later = [](uint64_t s, const Interval& i) { return s < i.begin; };
    auto lo = t.intervals.begin(), hi = t.intervals.end();
    for (size_t step = 1; hi != lo;) {
      const size_t span = static_cast<size_t>(hi - lo);
      const auto probe = hi - static_cast<std::ptrdiff_t>(std::min(step, span));
      if (probe->begin <= seq) {
        lo = probe;
        break;
      }
      hi = probe;
      step *= 2;
    }
    auto after = std::upper_bound(lo, hi, seq, later);
    if (after == t.intervals.begin()) return kNone;
    uint64_t index = t.first + static_cast<uint64_t>(after - t.intervals.begin()) - 1;
    for (const Interval* call = t.at(index); call; call = t.at(call->parent))
      if (seq < call->end) return call->module;
    return kNone;
  }

  size_t size() const {
    size_t n = 0;
    for (const auto& [thread, t] : threads_) n += t.intervals.size();
    return n;
  }

 private:
  static constexpr uint64_t kNoIndex = UINT64_MAX;
  struct Interval {
    uint64_t begin, end;  // [begin, end): end is UINT64_MAX while the call is open
    uint64_t parent;      // the index of the call it ran in, or kNoIndex
    uint32_t module;
  };
  struct Thread {
    std::deque<Interval> intervals;  // in the order the calls began
    uint64_t first = 0;              // the index of intervals.front()
    std::vector<uint64_t> open;      // indices of the open calls, outermost first
    Interval* at(uint64_t index) {
      return index >= first && index - first < intervals.size() ? &intervals[index - first] : nullptr;
    }
    const Interval* at(uint64_t index) const {
      return index >= first && index - first < intervals.size() ? &intervals[index - first] : nullptr;
    }
  };
  size_t max_per_thread_;
  std::unordered_map<uint64_t, Thread> threads_;
};

}  // namespace sawtooth::capture
