#include "capture/writer/phase_index.h"

#include <algorithm>

namespace sawtooth::capture {

void PhaseIndex::begin(uint32_t id, int64_t t_ns, uint16_t run) {
  if (!phases_.empty()) t_ns = std::max(t_ns, phases_.back().begin_ns);  // keeps the search valid
  const uint64_t position = base_ + phases_.size();
  phases_.push_back(Entry{t_ns, INT64_MAX, open_.empty() ? kNone : open_.back(), id, run});
  open_.push_back(position);
}

void PhaseIndex::end(uint32_t id, int64_t t_ns) {
  auto it = std::find_if(open_.rbegin(), open_.rend(), [&](uint64_t p) { return at(p).id == id; });
  if (it == open_.rend()) return;
  const size_t keep = static_cast<size_t>(open_.rend() - it) - 1;
  for (size_t i = keep; i < open_.size(); ++i) {
    Entry& e = phases_[open_[i] - base_];
    e.end_ns = std::max(t_ns, e.begin_ns);
  }
  open_.resize(keep);
}

uint32_t PhaseIndex::innermostAt(int64_t t_ns, uint16_t* run, uint16_t fallback_run) const {
  probes_ = 0;
  // The last phase begun at or before t.
  auto it = std::upper_bound(phases_.begin(), phases_.end(), t_ns,
                             [](int64_t t, const Entry& e) { return t < e.begin_ns; });
  uint64_t position = it == phases_.begin() ? kNone : base_ + static_cast<uint64_t>(it - phases_.begin()) - 1;
  // It covers t, or one of the phases around it does; any other phase begun earlier ended
  // before it began (nesting), so before t.
  while (position != kNone && position >= base_) {
    ++probes_;
    const Entry& e = at(position);
    if (e.end_ns >= t_ns) {
      if (run) *run = e.run;
      return e.id;
    }
    position = e.parent;
  }
  if (run) *run = fallback_run;
  return kNoPhase;
}

void PhaseIndex::forgetEndedBefore(int64_t t_ns) {
  // A prefix of ended phases goes; an ended phase's enclosing phases begin before it, so what
  // stays never names a forgotten parent that could still cover a later time.
  while (!phases_.empty() && phases_.front().end_ns < t_ns) {
    phases_.pop_front();
    ++base_;
  }
}

}  // namespace sawtooth::capture
