#pragma once
// Each module's forward, backward and recompute costs for a file too large to read whole (issue
// 25): over the step the moment falls in, from that step's events and module calls alone — what
// the Modules table shows for a trace read whole, but for one step rather than the whole run
// (ModuleMemory::costs_scope says which). A step is what the summaries mark as one (a step begins
// with each forward phase); without steps, or for a step past the bounds below, the costs are not
// computed and ModuleMemory::costs_unknown says why.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/module_table.h"
#include "core/analysis/summary_moment.h"
#include "core/analysis/timeline_model.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

inline constexpr int64_t kMaxStepCostEvents = 4'000'000;  // events read for one step's costs
inline constexpr size_t kMaxStepCostCalls = 2'000'000;    // module calls kept for them

// One step's costs, each module's (rows in moduleMemoryOf's order: the tree's, the same for every
// moment of a file), or why there are none.
struct StepCosts {
  DeviceId device = 0;
  int64_t step = -1;  // the step's id; -1: none (no steps, or not computed)
  bool known = false;
  std::string scope;    // ModuleMemory::costs_scope
  std::string unknown;  // ModuleMemory::costs_unknown
  std::vector<std::array<PassCost, 3>> rows;  // forward, backward, recompute
};

// The costs over the step that allocator event `position` of the device falls in; an error only
// when reading fails. `cached`, when it holds that step's, is returned as it is (no read).
Result<StepCosts> stepCostsAt(TimelineModel& model, const Trace& tables, DeviceId device, int64_t position,
                              Progress* progress = nullptr, const StepCosts* cached = nullptr);
void applyStepCosts(ModuleMemory& memory, const StepCosts& costs);

// modulesOf with the moment's step's costs; `cache` (optional) keeps the last step's for the next
// moment (scrubbing within a step reads nothing more).
Result<ModulesAt> modulesWithStepCosts(TimelineModel& model, const Trace& tables, const SummaryMoment& moment,
                                       Progress* progress = nullptr, StepCosts* cache = nullptr);

}  // namespace sawtooth
