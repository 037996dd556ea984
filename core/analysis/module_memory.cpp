#include "core/analysis/module_memory.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/analysis/allocator_history.h"
#include "core/analysis/live_allocations.h"
#include "core/analysis/series.h"
#include "core/util/format_bytes.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

// The largest rise of the allocated series during [begin_ns, end_ns] above its value when the
// call began (the value in force at begin_ns, events at that very time not yet counted).
int64_t peakIncrement(const Series& allocated, int64_t begin_ns, int64_t end_ns) {
  const std::vector<int64_t>& t = allocated.axis->t_ns;
  size_t p = static_cast<size_t>(std::lower_bound(t.begin(), t.end(), begin_ns) - t.begin());
  const int64_t base = allocated.valueBefore(p);
  int64_t high = base;
  for (; p < t.size() && t[p] <= end_ns; ++p) high = std::max(high, allocated.value[p]);
  return std::max<int64_t>(0, wrappingSub(high, base));
}

PassCost* costOf(ModuleRow& row, Pass pass) {
  switch (pass) {
    case Pass::Forward: return &row.forward;
    case Pass::Backward: return &row.backward;
    case Pass::Recompute: return &row.recompute;
    default: return nullptr;
  }
}

}  // namespace

std::vector<ModuleCall> backwardStretches(const Trace& trace) {
  const ModuleTree& tree = trace.modules;
  std::vector<std::vector<int64_t>> forward_begins(tree.size());
  for (const ModuleCall& call : tree.calls)
    if (call.module < tree.size() && call.pass == Pass::Forward) forward_begins[call.module].push_back(call.begin_ns);
  for (auto& begins : forward_begins) std::sort(begins.begin(), begins.end());
  // A module never called itself (a ModuleList: its children are called by its parent) counts its
  // backward stretches by its nearest ancestor's forward calls, one stretch a step as for the
  // others, not one over the whole run.
  std::vector<uint32_t> epochs_of(tree.size());
  for (uint32_t m = 0; m < tree.size(); ++m) {
    const uint32_t parent = tree.modules[m].parent;
    epochs_of[m] = forward_begins[m].empty() && parent < m ? epochs_of[parent] : m;
  }
  struct Stretch {
    int64_t begin, end;
  };
  std::map<std::pair<uint32_t, size_t>, Stretch> stretches;  // (module, forward calls begun before it)
  // [begin, end] of backward, of `module`: counted for it and each module above it.
  auto mark = [&](uint32_t module, int64_t begin, int64_t end) {
    for (uint32_t m = module, depth = 0; m < tree.size() && depth < tree.size(); m = tree.modules[m].parent, ++depth) {
      const auto& begins = forward_begins[epochs_of[m]];
      const size_t epoch = static_cast<size_t>(std::upper_bound(begins.begin(), begins.end(), begin) - begins.begin());
      auto [it, fresh] = stretches.try_emplace({m, epoch}, Stretch{begin, end});
      if (!fresh) {
        it->second.begin = std::min(it->second.begin, begin);
        it->second.end = std::max(it->second.end, end);
      }
    }
  };
  for (const ModuleCall& call : tree.calls)
    if (call.pass == Pass::Backward) mark(call.module, call.begin_ns, std::max(call.end_ns, call.begin_ns));
  // A backward event lasts until just before the next event, when that is another module's
  // backward (the node's work goes on after its allocation): a module whose backward allocates
  // once still shows the time until the next module's begins. The last before another pass ends
  // where it is.
  const EventStore& e = trace.events;
  // A gradient is its parameter's module's whoever made it, so a tied weight's (GPT-2's wte, shared
  // with lm_head) is made in the middle of another module's backward: between two events of that
  // one's, it is not its owner's backward time (which had then spanned the whole backward).
  auto inOthersRun = [&](size_t i) {
    if (e.category()[i] != Category::Gradient || i == 0 || i + 1 >= e.size()) return false;
    const uint32_t around = e.module(i - 1);
    return around != e.module(i) && around == e.module(i + 1) && e.pass(i - 1) == Pass::Backward &&
           e.pass(i + 1) == Pass::Backward;
  };
  int64_t next_t = 0, run_end = 0;
  uint32_t next_module = kNoModule;
  Pass next_pass = Pass::None;
  bool has_next = false;
  for (size_t i = e.size(); i-- > 0;) {
    const int64_t t = e.tNs()[i];
    const uint32_t module = e.module(i);
    const Pass pass = e.pass(i);
    if (pass == Pass::Backward && inOthersRun(i)) continue;
    if (!(has_next && module == next_module && pass == next_pass))
      run_end = has_next && next_pass == Pass::Backward ? std::max(t, next_t - 1) : t;
    if (pass == Pass::Backward) mark(module, t, std::max(run_end, t));
    next_t = t;
    next_module = module;
    next_pass = pass;
    has_next = true;
  }
  std::vector<ModuleCall> out;
  out.reserve(stretches.size());
  for (const auto& [key, s] : stretches) out.push_back(ModuleCall{key.first, Pass::Backward, kNoRun, s.begin, s.end});
  return out;
}

int64_t CategoryBytes::total() const {
  int64_t sum = 0;
  for (int64_t b : bytes) sum = wrappingAdd(sum, b);
  return sum;
}

int64_t CategoryBytes::other() const {
  return wrappingAdd(wrappingAdd((*this)[Category::Input], (*this)[Category::Unknown]),
                     (*this)[Category::AutogradDetail]);
}

void CategoryBytes::add(const CategoryBytes& o) {
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = wrappingAdd(bytes[i], o.bytes[i]);
}

std::string modulesUnavailableReason(const Trace& trace) {
  if (!trace.modules.empty()) return {};
  if (trace.format == "pytorch-snapshot")
    return "PyTorch's memory snapshots record no modules: record the program with `sawtooth-record --modules on -- "
           "python SCRIPT` to see which module holds each byte";
  if (trace.format == "torch-profiler" || trace.format == "torch-memory-timeline")
    return "torch.profiler's traces record no modules: record the program with `sawtooth-record --modules on -- "
           "python SCRIPT` to see which module holds each byte";
  if (trace.format == "jax-memory-profile") return "JAX memory profiles record no modules";
  if (auto it = trace.meta.find("modules"); it != trace.meta.end() && it->second == "off")
    return "this recording has no modules: module tracking was off (the default, as it costs up to about 1 % of a "
           "training step); record again with `--modules on` (in the app: Record a program, Modules) to see which "
           "module holds each byte";
  return "this recording has no modules: it was made before Sawtooth recorded them, with module tracking off, or of "
         "a program that ran no torch.nn.Module";
}

ModuleMemory::Program programToRecordWithModules(const Trace& trace) {
  constexpr size_t kMostArguments = 4096;  // a file is data: a command of any other shape is not offered
  ModuleMemory::Program out;
  const auto modules = trace.meta.find("modules");
  const auto command = trace.meta.find("command");
  if (modules == trace.meta.end() || modules->second != "off" || command == trace.meta.end()) return out;
  const auto j = nlohmann::json::parse(command->second, nullptr, false);
  if (!j.is_array() || j.empty() || j.size() > kMostArguments) return out;
  std::vector<std::string> argv;
  for (const auto& a : j) {
    if (!a.is_string()) return out;
    argv.push_back(a.get<std::string>());
  }
  if (argv.front().empty()) return out;
  out.argv = std::move(argv);
  if (auto cwd = trace.meta.find("cwd"); cwd != trace.meta.end()) out.cwd = cwd->second;
  constexpr size_t kMostEntries = 64;
  for (auto it = trace.meta.lower_bound("env."); it != trace.meta.end() && it->first.starts_with("env."); ++it) {
    const std::string name = it->first.substr(4);
    const bool word = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                      std::all_of(name.begin(), name.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                      });
    if (word && it->second.find_first_of("\r\n") == std::string::npos && out.environment.size() < kMostEntries)
      out.environment.push_back(name + "=" + it->second);
  }
  return out;
}

ModuleMemory moduleMemoryOf(const Trace& trace, const LiveSet& live, bool at_peak, const MomentContext& context) {
  ModuleMemory out;
  out.device = live.device;
  out.at_peak = at_peak;
  out.unavailable = modulesUnavailableReason(trace);
  if (!out.unavailable.empty()) out.record_again = programToRecordWithModules(trace);
  out.position = live.position;
  out.live_bytes = live.total;
  out.at_pass = context.pass;
  out.at_phase = context.phase;
  out.at_module = context.module;
  out.costs_known = false;
  if (!out.unavailable.empty()) return out;

  // Rows in tree order: each module's children in the tree's own order, depth first.
  const ModuleTree& tree = trace.modules;
  const auto children = tree.children();
  std::vector<uint32_t> row_of(tree.size(), UINT32_MAX);
  std::vector<uint32_t> stack;
  for (uint32_t m = static_cast<uint32_t>(tree.size()); m-- > 0;)
    if (tree.modules[m].parent == kNoModule || tree.modules[m].parent >= m) stack.push_back(m);
  while (!stack.empty()) {
    const uint32_t m = stack.back();
    stack.pop_back();
    ModuleRow row;
    row.module = m;
    row.name = tree.fullName(m);
    row.class_name = tree.modules[m].class_name;
    row.declared_parameter_bytes = tree.modules[m].parameter_bytes;
    const uint32_t parent = tree.modules[m].parent;
    if (parent < m) {
      row.parent_row = row_of[parent];
      row.depth = out.rows[row.parent_row].depth + 1;
    }
    row_of[m] = static_cast<uint32_t>(out.rows.size());
    out.rows.push_back(std::move(row));
    for (auto it = children[m].rbegin(); it != children[m].rend(); ++it) stack.push_back(*it);
  }
  ModuleRow outside;
  outside.name = std::string(kOutsideModules);
  const uint32_t outside_row = static_cast<uint32_t>(out.rows.size());
  out.rows.push_back(std::move(outside));

  for (const LiveAllocation& a : live.allocations) {
    ModuleRow& row = out.rows[a.module < row_of.size() ? row_of[a.module] : outside_row];
    row.self[a.category] = wrappingAdd(row.self[a.category], a.bytes);
    ++row.allocations;
  }
  // What the device counts but no allocation accounts for (before the trace began).
  out.rows[outside_row].self[Category::Unknown] = wrappingAdd(out.rows[outside_row].self[Category::Unknown],
                                                              live.unattributed);
  for (ModuleRow& row : out.rows) row.total = row.self;
  // Children come after their parents: adding from the end up carries each subtree to its root.
  for (size_t r = out.rows.size(); r-- > 0;)
    if (out.rows[r].parent_row != UINT32_MAX) out.rows[out.rows[r].parent_row].total.add(out.rows[r].total);

  size_t holding = 0;
  for (const ModuleRow& row : out.rows)
    if (row.module != kNoModule && row.self.total() != 0) ++holding;
  std::string during;
  if (!out.at_pass.empty() || !out.at_module.empty())
    during = fmt::format(", {}{}{}", out.at_pass.empty() ? "" : out.at_pass, out.at_pass.empty() || out.at_module.empty() ? "" : " of ",
                         out.at_module);
  out.headline = fmt::format("{} {}{}: {} alive, {} of it in {} module{} and {} outside modules",
                             out.at_peak ? "At the peak on" : "On", trace.deviceName(out.device),
                             out.position < 0 ? " (before the first allocator event)"
                                              : fmt::format(" (after allocator event {}{})", out.position, during),
                             formatBytes(out.live_bytes),
                             formatBytes(wrappingSub(out.live_bytes, out.rows[outside_row].self.total())), holding,
                             holding == 1 ? "" : "s", formatBytes(out.rows[outside_row].self.total()));
  return out;
}

ModuleMemory moduleMemoryAt(const Trace& trace, int16_t device, std::optional<int64_t> position) {
  const LiveSet live = liveAllocationsAt(trace, device, position ? *position : scopePeak(trace, device).position);
  MomentContext context;
  if (live.position >= 0) {
    const std::vector<uint64_t> events = allocatorEvents(trace, device);
    const uint64_t e = events[static_cast<size_t>(live.position)];
    if (trace.events.pass(e) != Pass::None) context.pass = std::string(name(trace.events.pass(e)));
    if (const uint32_t phase = trace.events.phase()[e]; phase < trace.phases.size()) context.phase = trace.phases[phase].name;
    if (const uint32_t m = trace.events.module(e); m < trace.modules.size()) context.module = trace.modules.fullName(m);
  }
  ModuleMemory out = moduleMemoryOf(trace, live, !position.has_value(), context);
  addModuleCosts(out, trace, device);
  return out;
}

void addModuleCosts(ModuleMemory& out, const Trace& trace, int16_t device) {
  if (!out.unavailable.empty()) return;
  out.costs_known = true;
  for (ModuleRow& row : out.rows) row.forward = row.backward = row.recompute = PassCost{};
  std::vector<uint32_t> row_of(trace.modules.size(), UINT32_MAX);
  for (uint32_t r = 0; r < out.rows.size(); ++r)
    if (out.rows[r].module < row_of.size()) row_of[out.rows[r].module] = r;
  const ModuleTree& tree = trace.modules;
  const DeviceSeries series = buildDeviceSeries(trace, device);
  // Forward and recompute by their calls; backward by its stretches, the submodules' included as
  // a forward call includes them (a backward call, where the shim marks one, runs only until the
  // next module's begins).
  std::vector<ModuleCall> calls;
  for (const ModuleCall& call : tree.calls)
    if (call.pass != Pass::Backward) calls.push_back(call);
  for (ModuleCall& c : backwardStretches(trace)) calls.push_back(c);
  std::map<PassCost*, std::vector<int64_t>> durations;  // for the medians
  for (const ModuleCall& call : calls) {
    if (call.module >= row_of.size()) continue;
    PassCost* cost = costOf(out.rows[row_of[call.module]], call.pass);
    if (!cost) continue;
    ++cost->calls;
    const int64_t ns = std::max<int64_t>(0, call.end_ns - call.begin_ns);
    cost->time_ns = wrappingAdd(cost->time_ns, ns);
    durations[cost].push_back(ns);
    cost->peak_increment = std::max(cost->peak_increment, peakIncrement(series.allocated, call.begin_ns, call.end_ns));
  }
  for (auto& [cost, ns] : durations) {
    // The lower median of an even count: a call that happened, not a mean of two.
    const auto middle = ns.begin() + static_cast<std::ptrdiff_t>((ns.size() - 1) / 2);
    std::nth_element(ns.begin(), middle, ns.end());
    cost->median_ns = *middle;
  }
}

std::vector<const ModuleRow*> rowsToDepth(const ModuleMemory& memory, int max_depth) {
  std::vector<const ModuleRow*> out;
  for (const ModuleRow& row : memory.rows)
    if (row.depth <= max_depth) out.push_back(&row);
  return out;
}

}  // namespace sawtooth
