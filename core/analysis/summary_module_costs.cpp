#include "core/analysis/summary_module_costs.h"

#include <algorithm>

#include <fmt/format.h>

namespace sawtooth {
namespace {

constexpr uint64_t kSeqsPerRead = 65536;

// The step span of the device that holds allocator point `point` (the last begun at or before its
// time when none holds it).
Result<std::optional<summary::SpanRow>> stepOf(TimelineModel& model, DeviceId device, int64_t point, int64_t t) {
  std::vector<summary::SpanRow> spans;
  if (Status st = model.source().spans(device, summary::SpanKind::Step, t, t + 1, spans); !st) return st.error();
  std::optional<summary::SpanRow> best;
  for (const summary::SpanRow& s : spans) {
    if (s.first_point <= point && point < s.end_point) return std::optional<summary::SpanRow>(s);
    if (s.begin_ns <= t && (!best || s.begin_ns > best->begin_ns)) best = s;
  }
  return best;
}

}  // namespace

Result<StepCosts> stepCostsAt(TimelineModel& model, const Trace& tables, DeviceId device, int64_t position,
                              Progress* progress, const StepCosts* cached) {
  StepCosts out;
  out.device = device;
  if (!modulesUnavailableReason(tables).empty()) return out;
  const TimelineModel::Device* d = model.device(device);
  if (!d || d->allocator_points == 0) {
    out.unknown = "the device has no allocator events";
    return out;
  }
  const int64_t point = std::clamp<int64_t>(position, 0, d->allocator_points - 1);
  auto at = model.point(device, point);
  if (!at) return at.error();
  auto step = stepOf(model, device, point, at->first);
  if (!step) return step.error();
  if (!*step) {
    out.unknown =
        "the trace marks no steps (a step begins with each forward phase), and over the whole run each module's costs "
        "need every event: not computed for a file this size";
    return out;
  }
  const summary::SpanRow& s = **step;
  // A step still growing (a recording) is read again; a finished one is what it was.
  if (cached && cached->device == device && cached->step == s.id && !s.open) return *cached;
  out.step = s.id;
  // Where the step's calls begin: the forward phase is marked as the top-level module's call
  // begins, so that call may begin a moment before it (it is still running when the phase begins).
  const int64_t end = s.open || s.end_ns <= s.begin_ns ? INT64_MAX : s.end_ns;
  // A quarter of the step (at least 1 ms) before it; in double, as a file's times may be anything.
  const double lookback = std::max(1e6, end == INT64_MAX ? 0.0 : (static_cast<double>(end) - static_cast<double>(s.begin_ns)) / 4);
  const int64_t from_ns = static_cast<int64_t>(std::max(static_cast<double>(INT64_MIN), static_cast<double>(s.begin_ns) - lookback));
  Trace window;
  window.format = tables.format;
  window.devices = tables.devices;
  window.modules.modules = tables.modules.modules;
  std::vector<ModuleCall>& calls = window.modules.calls;
  if (Status st = model.source().moduleCalls(from_ns, end, kMaxStepCostCalls, calls); !st) return st.error();
  if (calls.size() > kMaxStepCostCalls) {
    out.unknown = fmt::format("step {} holds more than {} module calls, more than are read for one step's costs: not computed",
                              s.id, kMaxStepCostCalls);
    return out;
  }
  int64_t begin = s.begin_ns;
  for (const ModuleCall& c : calls)
    if (c.pass == Pass::Forward && c.module < tables.modules.size() && tables.modules.modules[c.module].parent == kNoModule &&
        c.begin_ns < s.begin_ns && c.end_ns >= s.begin_ns)
      begin = std::min(begin, c.begin_ns);
  std::erase_if(calls, [&](const ModuleCall& c) { return c.begin_ns < begin || (end != INT64_MAX && c.end_ns > end); });

  auto first_at = model.pointAtTime(device, summary::kAllocatorAxis, begin);
  if (!first_at) return first_at.error();
  auto end_at = end == INT64_MAX ? Result<int64_t>(d->allocator_points) : model.pointAtTime(device, summary::kAllocatorAxis, end);
  if (!end_at) return end_at.error();
  const int64_t first_point = *first_at, end_point = *end_at;
  if (end_point - first_point > kMaxStepCostEvents) {
    out.unknown = fmt::format("step {} holds {} allocator events, more than the {} read for one step's costs: not computed",
                              s.id, end_point - first_point, kMaxStepCostEvents);
    return out;
  }
  auto count = model.source().eventCount();
  if (!count) return count.error();
  if (first_point < end_point && *count > 0) {
    auto first_seq = model.seqOfPoint(device, first_point);
    if (!first_seq) return first_seq.error();
    uint64_t last_seq = *count - 1;  // never past the file's events, whatever its summaries say
    if (end_point < d->allocator_points) {
      auto next = model.seqOfPoint(device, end_point);
      if (!next) return next.error();
      if (*next > 0) last_seq = std::min(last_seq, *next - 1);
    }
    std::vector<summary::EventRow> rows;
    for (uint64_t from = *first_seq; from <= last_seq;) {
      if (progress && progress->cancelled()) return Error{"cancelled"};
      const uint64_t last = std::min(last_seq, from + (kSeqsPerRead - 1));
      if (Status st = model.source().events(from, last, std::nullopt, std::nullopt, rows); !st) return st.error();
      if (window.events.size() + rows.size() > static_cast<size_t>(2 * kMaxStepCostEvents)) {
        out.unknown = fmt::format("step {} holds more than {} events: its costs were not computed", s.id, 2 * kMaxStepCostEvents);
        return out;
      }
      for (const summary::EventRow& r : rows) window.events.push(r.event);
      from = last + 1;
    }
  }
  ModuleMemory memory = moduleMemoryOf(window, LiveSet{}, false, MomentContext{});
  addModuleCosts(memory, window, static_cast<int16_t>(device));
  out.known = true;
  out.rows.reserve(memory.rows.size());
  for (const ModuleRow& row : memory.rows) out.rows.push_back({row.forward, row.backward, row.recompute});
  out.scope = fmt::format("step {} (the moment's: {} allocator events, {} module calls)", s.id, end_point - first_point,
                          calls.size());
  return out;
}

void applyStepCosts(ModuleMemory& memory, const StepCosts& costs) {
  memory.costs_known = false;
  memory.costs_scope.clear();
  memory.costs_unknown = costs.unknown;
  if (!memory.unavailable.empty() || !costs.known || costs.rows.size() != memory.rows.size()) return;
  memory.costs_known = true;
  memory.costs_scope = costs.scope;
  for (size_t r = 0; r < memory.rows.size(); ++r) {
    memory.rows[r].forward = costs.rows[r][0];
    memory.rows[r].backward = costs.rows[r][1];
    memory.rows[r].recompute = costs.rows[r][2];
  }
}

Result<ModulesAt> modulesWithStepCosts(TimelineModel& model, const Trace& tables, const SummaryMoment& moment,
                                       Progress* progress, StepCosts* cache) {
  ModuleMemory memory = moduleMemoryOf(tables, moment.live, moment.at_peak, moment.context);
  if (memory.unavailable.empty()) {
    auto costs = stepCostsAt(model, tables, moment.device, moment.position, progress, cache);
    if (!costs) {
      if (progress && progress->cancelled()) return costs.error();
      // The bytes stand without the costs: a file whose calls or events cannot be read says why.
      StepCosts failed;
      failed.device = moment.device;
      failed.unknown = "reading the step's calls and events failed: " + costs.error().message;
      costs = std::move(failed);
    }
    applyStepCosts(memory, *costs);
    if (cache && costs->known) *cache = std::move(*costs);
  }
  return modulesFrom(std::move(memory));
}

}  // namespace sawtooth
