#include "core/model/trace_merge.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>
#include <set>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "core/util/keyed_hash.h"

namespace sawtooth {
namespace {

constexpr std::string_view kClockKey = "t0_clock_ns";

// How one input's ids map into the merged trace.
struct InputMap {
  uint32_t first_phase = 0;
  std::vector<uint16_t> runs;  // the input's run id -> merged run id
  uint16_t default_run = kNoRun;  // for events outside any run (ranks only)
  std::vector<uint32_t> stacks;
  std::vector<uint32_t> kernel_names;
  std::vector<uint32_t> modules;  // the input's module -> merged module

  uint16_t run(uint16_t id) const { return id < runs.size() ? runs[id] : default_run; }
};

std::string prefixed(const std::string& label, const std::string& name, const char* separator) {
  return label.empty() ? name : label + separator + name;
}

class Merger {
 public:
  explicit Merger(std::span<const MergeInput> inputs) : inputs_(inputs), maps_(inputs.size()) {}

  Result<Trace> merge() {
    if (inputs_.empty()) return Error{"no traces to merge"};
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (!inputs_[i].trace) return Error{"a trace to merge is missing"};
      if (Status st = mergeRuns(i); !st) return st.error();
      mergePhases(i);
      mergeStacks(i);
      mergeKernels(i);
      mergeDevices(i);
      mergeModules(i);
    }
    std::stable_sort(out_.modules.calls.begin(), out_.modules.calls.end(),
                     [](const ModuleCall& x, const ModuleCall& y) { return x.begin_ns < y.begin_ns; });
    mergeEventsAndCounters();
    return std::move(out_);
  }

 private:
  int64_t timeOf(size_t i, int64_t t) const { return inputs_[i].time ? inputs_[i].time(t) : t; }
  DeviceId deviceOf(size_t i, DeviceId d) const { return static_cast<DeviceId>(d + inputs_[i].device_offset); }

  Status mergeRuns(size_t i) {
    const MergeInput& in = inputs_[i];
    const Trace& t = *in.trace;
    InputMap& m = maps_[i];
    const auto add = [&](Run run) -> Result<uint16_t> {
      if (out_.runs.size() >= kNoRun) return Error{fmt::format("too many runs to merge (at most {})", kNoRun)};
      if (in.rank >= 0 && !run.configValue("rank")) run.config.insert(run.config.begin(), {"rank", std::to_string(in.rank)});
      out_.runs.push_back(std::move(run));
      return static_cast<uint16_t>(out_.runs.size() - 1);
    };
    if (in.rank >= 0 && t.runs.empty()) {
      Run run;
      run.name = fmt::format("rank {}", in.rank);
      if (auto it = t.meta.find("workload"); it != t.meta.end()) run.workload = it->second;
      auto id = add(std::move(run));
      if (!id) return id.error();
      m.default_run = *id;
      return Ok{};
    }
    for (const Run& original : t.runs) {
      Run run = original;
      if (in.rank >= 0)
        run.name = t.runs.size() == 1 ? fmt::format("rank {}", in.rank) : fmt::format("rank {}: {}", in.rank, original.name);
      else
        run.name = prefixed(in.label, original.name, ": ");
      auto id = add(std::move(run));
      if (!id) return id.error();
      m.runs.push_back(*id);
    }
    if (in.rank >= 0) m.default_run = m.runs.front();
    return Ok{};
  }

  void mergePhases(size_t i) {
    InputMap& m = maps_[i];
    m.first_phase = static_cast<uint32_t>(out_.phases.size());
    for (Phase p : inputs_[i].trace->phases) {
      p.run = m.run(p.run);
      if (p.device != kAllDevices) p.device = deviceOf(i, p.device);
      p.begin_ns = timeOf(i, p.begin_ns);
      p.end_ns = timeOf(i, p.end_ns);
      p.name = prefixed(inputs_[i].label, p.name, ": ");
      out_.phases.push_back(std::move(p));
    }
  }

  void mergeStacks(size_t i) {
    const StackTable& in = inputs_[i].trace->stacks;
    std::vector<uint32_t> frames(in.frameCount());
    for (size_t f = 0; f < in.frameCount(); ++f) {
      const FrameView frame = in.frame(static_cast<uint32_t>(f));
      frames[f] = out_.stacks.internFrame(frame.name, frame.file, frame.line);
    }
    InputMap& m = maps_[i];
    m.stacks.resize(in.stackCount());
    std::vector<uint32_t> ids;
    for (size_t s = 0; s < in.stackCount(); ++s) {
      ids.clear();
      for (uint32_t f : in.stack(static_cast<uint32_t>(s))) ids.push_back(frames[f]);
      m.stacks[s] = out_.stacks.internStack(ids);
    }
  }

  void mergeKernels(size_t i) {
    const Trace& in = *inputs_[i].trace;
    InputMap& m = maps_[i];
    for (const std::string& kernel : in.kernel_names) {
      auto [it, added] = kernel_ids_.try_emplace(kernel, static_cast<uint32_t>(out_.kernel_names.size()));
      if (added) out_.kernel_names.push_back(kernel);
      m.kernel_names.push_back(it->second);
    }
    for (KernelInterval k : in.kernels) {
      if (k.name >= m.kernel_names.size()) continue;
      k.name = m.kernel_names[k.name];
      k.run = m.run(k.run);
      k.device = deviceOf(i, k.device);
      k.begin_ns = timeOf(i, k.begin_ns);
      k.end_ns = timeOf(i, k.end_ns);
      out_.kernels.push_back(k);
    }
  }

  // Inputs on one device (every CPU rank is device -1) add up their baselines.
  void mergeDevices(size_t i) {
    const MergeInput& in = inputs_[i];
    for (DeviceId id : in.trace->deviceIds()) {
      DeviceInfo d = in.trace->device(id) ? *in.trace->device(id) : DeviceInfo{};
      d.device = deviceOf(i, id);
      if (!in.label.empty()) d.label = in.label + " " + in.trace->deviceName(id);
      const bool known = out_.device(d.device) != nullptr;
      DeviceInfo& merged = out_.deviceInfo(d.device);
      if (!known) {
        merged = d;
        continue;
      }
      merged.baseline_allocated += d.baseline_allocated;
      merged.baseline_reserved += d.baseline_reserved;
      if (merged.name.empty()) merged.name = d.name;
      if (merged.total_bytes == 0) merged.total_bytes = d.total_bytes;
    }
  }

  // Modules of the same name, class and parent are one module (the replicas of a data-parallel
  // run): the bytes of each rank stay apart by device and run. Its parameter bytes are the
  // largest any input gives (a sharded rank holds fewer).
  void mergeModules(size_t i) {
    const ModuleTree& in = inputs_[i].trace->modules;
    InputMap& m = maps_[i];
    m.modules.assign(in.modules.size(), kNoModule);
    for (size_t k = 0; k < in.modules.size(); ++k) {
      Module module = in.modules[k];
      module.parent = module.parent < k ? m.modules[module.parent] : kNoModule;
      auto [it, added] = module_ids_.try_emplace(std::tuple{module.name, module.class_name, module.parent},
                                                 static_cast<uint32_t>(out_.modules.modules.size()));
      if (added) out_.modules.modules.push_back(module);
      Module& merged = out_.modules.modules[it->second];
      merged.parameter_bytes = std::max(merged.parameter_bytes, module.parameter_bytes);
      m.modules[k] = it->second;
    }
    for (ModuleCall c : in.calls) {
      if (c.module >= m.modules.size()) continue;
      c.module = m.modules[c.module];
      c.run = m.run(c.run);
      c.begin_ns = timeOf(i, c.begin_ns);
      c.end_ns = timeOf(i, c.end_ns);
      out_.modules.calls.push_back(c);
    }
  }

  // Interleaves the inputs' events by time, each input in its own order (few inputs: a linear
  // scan for the earliest head is cheaper than a heap).
  void mergeEventsAndCounters() {
    size_t total = 0;
    for (const MergeInput& in : inputs_) total += in.trace->events.size();
    out_.events.reserve(total);
    std::vector<size_t> next(inputs_.size(), 0);
    std::vector<int64_t> head(inputs_.size(), 0);  // the mapped time of each input's next event
    auto refresh = [&](size_t i) {
      const EventStore& ev = inputs_[i].trace->events;
      if (next[i] < ev.size()) head[i] = timeOf(i, ev.tNs()[next[i]]);
    };
    for (size_t i = 0; i < inputs_.size(); ++i) refresh(i);
    // New index of every event, for the inputs whose counters point at events.
    std::vector<std::vector<uint64_t>> new_index(inputs_.size());
    for (size_t i = 0; i < inputs_.size(); ++i)
      if (!inputs_[i].trace->counters.empty()) new_index[i].resize(inputs_[i].trace->events.size());

    for (size_t n = 0; n < total; ++n) {
      size_t pick = inputs_.size();
      for (size_t i = 0; i < inputs_.size(); ++i) {
        if (next[i] == inputs_[i].trace->events.size()) continue;
        if (pick == inputs_.size() || head[i] < head[pick]) pick = i;
      }
      const Trace& in = *inputs_[pick].trace;
      const InputMap& m = maps_[pick];
      Event e = in.events.at(next[pick]);
      e.t_ns = head[pick];
      e.device = deviceOf(pick, e.device);
      if (e.phase != kNoPhase) e.phase = e.phase < in.phases.size() ? e.phase + m.first_phase : kNoPhase;
      if (e.stack != kNoStack) e.stack = e.stack < m.stacks.size() ? m.stacks[e.stack] : kNoStack;
      e.run = m.run(e.run);
      if (e.module != kNoModule) e.module = e.module < m.modules.size() ? m.modules[e.module] : kNoModule;
      if (!new_index[pick].empty()) new_index[pick][next[pick]] = out_.events.size();
      out_.events.push(e);
      ++next[pick];
      refresh(pick);
    }

    for (size_t i = 0; i < inputs_.size(); ++i)
      for (Counter c : inputs_[i].trace->counters) {
        c.device = deviceOf(i, c.device);
        for (uint64_t& after : c.after_event)
          if (after < new_index[i].size()) after = new_index[i][after];
        out_.counters.push_back(std::move(c));
      }
  }

  std::span<const MergeInput> inputs_;
  std::vector<InputMap> maps_;
  std::unordered_map<std::string, uint32_t, KeyedHash> kernel_ids_;  // names from the files: keyed
  std::map<std::tuple<std::string, std::string, uint32_t>, uint32_t> module_ids_;
  Trace out_;
};

Result<int64_t> clockOrigin(const RankTrace& r) {
  auto it = r.trace.meta.find(std::string(kClockKey));
  if (it == r.trace.meta.end())
    return Error{fmt::format("rank {}: its trace has no {} in the meta table, so it cannot be aligned in time with "
                             "the other ranks (record every rank with sawtooth-record)",
                             r.rank, kClockKey)};
  int64_t value = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    return Error{fmt::format("rank {}: unreadable {} '{}' in its meta table", r.rank, kClockKey, text)};
  return value;
}

}  // namespace

Result<Trace> mergeTraces(std::span<const MergeInput> inputs) { return Merger(inputs).merge(); }

Result<Trace> mergeRankTraces(std::span<const RankTrace> ranks) {
  if (ranks.empty()) return Error{"no rank traces to merge"};
  std::set<int> seen;
  for (const RankTrace& r : ranks)
    if (!seen.insert(r.rank).second) return Error{fmt::format("rank {} appears twice among the traces to merge", r.rank)};
  std::vector<int64_t> origins;
  for (const RankTrace& r : ranks) {
    auto origin = clockOrigin(r);
    if (!origin) return origin.error();
    origins.push_back(*origin);
  }
  const int64_t origin = *std::min_element(origins.begin(), origins.end());

  std::vector<MergeInput> inputs;
  for (size_t i = 0; i < ranks.size(); ++i) {
    MergeInput in;
    in.trace = &ranks[i].trace;
    in.rank = ranks[i].rank;
    const int64_t shift = origins[i] - origin;
    if (shift != 0) in.time = [shift](int64_t t) { return t + shift; };
    inputs.push_back(std::move(in));
  }
  auto merged = mergeTraces(inputs);
  if (!merged) return merged;
  Trace& out = *merged;
  out.format = "sawtooth";
  out.meta = ranks.front().trace.meta;
  for (const RankTrace& r : ranks.subspan(1))
    for (const auto& [k, v] : r.trace.meta) {
      if (k == kClockKey) continue;
      auto it = out.meta.find(k);
      if (it == out.meta.end() || it->second != v) out.meta[fmt::format("rank{}.{}", r.rank, k)] = v;
    }
  out.meta[std::string(kClockKey)] = std::to_string(origin);
  out.meta["ranks"] = std::to_string(ranks.size());
  return merged;
}

}  // namespace sawtooth
