#pragma once
// The phases a recording has seen, for attributing records that arrive late (CUPTI's driver
// records and kernel intervals come in buffers, after the phase they belong to has moved on).
//
// Phases nest (the workload opens and closes them as a stack) and begin in time order, so the
// innermost phase covering a time t is the last phase begun at or before t, or one of the phases
// enclosing it: a binary search, then a walk up at most the nesting depth. Looking through every
// phase instead made each late record cost as much as the run was long: quadratic recordings.

#include <cstdint>
#include <deque>
#include <vector>

#include "core/model/event_store.h"

namespace sawtooth::capture {

class PhaseIndex {
 public:
  // A phase begins at t (not before the previous one began), inside the phases still open.
  void begin(uint32_t id, int64_t t_ns, uint16_t run);
  // The innermost open phase with this id ends at t; phases opened inside it and still open end
  // with it (a workload that forgot to close one).
  void end(uint32_t id, int64_t t_ns);

  // The id of the innermost phase covering t (begun at or before t and not ended before t), and
  // the run of that phase; kNoPhase (and `fallback_run`) when none covers t.
  uint32_t innermostAt(int64_t t_ns, uint16_t* run = nullptr, uint16_t fallback_run = kNoRun) const;

  // Forgets phases that ended before t (records that late are no longer expected); keeps memory
  // bounded by the phases of the last stretch instead of the whole run.
  void forgetEndedBefore(int64_t t_ns);

  size_t size() const { return phases_.size(); }
  // How many phases the last lookup examined: bounded by the nesting depth plus the search.
  size_t lastProbeCount() const { return probes_; }

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  struct Entry {
    int64_t begin_ns;
    int64_t end_ns;   // INT64_MAX while open
    uint64_t parent;  // absolute position of the enclosing phase, kNone at the top
    uint32_t id;
    uint16_t run;
  };
  const Entry& at(uint64_t position) const { return phases_[position - base_]; }

  std::deque<Entry> phases_;  // absolute positions [base_, base_ + size)
  uint64_t base_ = 0;
  std::vector<uint64_t> open_;  // absolute positions, outermost first
  mutable size_t probes_ = 0;
};

}  // namespace sawtooth::capture
