#include "core/io/trace_merge.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "core/io/native_format.h"

namespace sawtooth {
namespace {

constexpr std::string_view kClockKey = "t0_clock_ns";

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

// How one rank's ids map into the merged trace.
struct RankMap {
  int64_t shift_ns = 0;
  uint32_t first_phase = 0;
  std::vector<uint16_t> runs;  // the rank's run id -> merged run id
  uint16_t default_run = kNoRun;
  std::vector<uint32_t> stacks;
  std::vector<uint32_t> kernel_names;

  uint16_t run(uint16_t id) const { return id < runs.size() ? runs[id] : default_run; }
};

class Merger {
 public:
  explicit Merger(std::span<const RankTrace> ranks) : ranks_(ranks), maps_(ranks.size()) {}

  Result<Trace> merge() {
    if (ranks_.empty()) return Error{"no rank traces to merge"};
    std::set<int> seen;
    for (const RankTrace& r : ranks_)
      if (!seen.insert(r.rank).second) return Error{fmt::format("rank {} appears twice among the traces to merge", r.rank)};

    std::vector<int64_t> origins;
    for (const RankTrace& r : ranks_) {
      auto origin = clockOrigin(r);
      if (!origin) return origin.error();
      origins.push_back(*origin);
    }
    const int64_t origin = *std::min_element(origins.begin(), origins.end());

    out_.format = "sawtooth";
    mergeMeta(origin);
    for (size_t i = 0; i < ranks_.size(); ++i) {
      maps_[i].shift_ns = origins[i] - origin;
      if (Status st = mergeRuns(i); !st) return st.error();
      mergePhases(i);
      mergeStacks(i);
      mergeKernels(i);
      mergeDevices(i);
    }
    mergeEventsAndCounters();
    return std::move(out_);
  }

 private:
  // The first rank's entries; another rank's entry that differs is kept as "rankR.KEY".
  void mergeMeta(int64_t origin) {
    out_.meta = ranks_.front().trace.meta;
    for (const RankTrace& r : ranks_.subspan(1))
      for (const auto& [k, v] : r.trace.meta) {
        if (k == kClockKey) continue;
        auto it = out_.meta.find(k);
        if (it == out_.meta.end() || it->second != v) out_.meta[fmt::format("rank{}.{}", r.rank, k)] = v;
      }
    out_.meta[std::string(kClockKey)] = std::to_string(origin);
    out_.meta["ranks"] = std::to_string(ranks_.size());
  }

  Status mergeRuns(size_t i) {
    const RankTrace& r = ranks_[i];
    RankMap& m = maps_[i];
    const auto add = [&](Run run) -> Result<uint16_t> {
      if (out_.runs.size() >= kNoRun)
        return Error{fmt::format("too many runs to merge (at most {}) at rank {}", kNoRun, r.rank)};
      if (!run.configValue("rank"))
        run.config.insert(run.config.begin(), {"rank", std::to_string(r.rank)});
      out_.runs.push_back(std::move(run));
      return static_cast<uint16_t>(out_.runs.size() - 1);
    };
    if (r.trace.runs.empty()) {
      Run run;
      run.name = fmt::format("rank {}", r.rank);
      if (auto it = r.trace.meta.find("workload"); it != r.trace.meta.end()) run.workload = it->second;
      auto id = add(std::move(run));
      if (!id) return id.error();
      m.default_run = *id;
      return Ok{};
    }
    for (const Run& original : r.trace.runs) {
      Run run = original;
      run.name = r.trace.runs.size() == 1 ? fmt::format("rank {}", r.rank) : fmt::format("rank {}: {}", r.rank, original.name);
      auto id = add(std::move(run));
      if (!id) return id.error();
      m.runs.push_back(*id);
    }
    m.default_run = m.runs.front();
    return Ok{};
  }

  void mergePhases(size_t i) {
    RankMap& m = maps_[i];
    m.first_phase = static_cast<uint32_t>(out_.phases.size());
    for (Phase p : ranks_[i].trace.phases) {
      p.run = m.run(p.run);
      p.begin_ns += m.shift_ns;
      p.end_ns += m.shift_ns;
      out_.phases.push_back(std::move(p));
    }
  }

  void mergeStacks(size_t i) {
    const StackTable& in = ranks_[i].trace.stacks;
    std::vector<uint32_t> frames(in.frameCount());
    for (size_t f = 0; f < in.frameCount(); ++f) {
      const FrameView frame = in.frame(static_cast<uint32_t>(f));
      frames[f] = out_.stacks.internFrame(frame.name, frame.file, frame.line);
    }
    RankMap& m = maps_[i];
    m.stacks.resize(in.stackCount());
    std::vector<uint32_t> ids;
    for (size_t s = 0; s < in.stackCount(); ++s) {
      ids.clear();
      for (uint32_t f : in.stack(static_cast<uint32_t>(s))) ids.push_back(frames[f]);
      m.stacks[s] = out_.stacks.internStack(ids);
    }
  }

  void mergeKernels(size_t i) {
    const Trace& in = ranks_[i].trace;
    RankMap& m = maps_[i];
    for (const std::string& kernel : in.kernel_names) {
      auto [it, added] = kernel_ids_.try_emplace(kernel, static_cast<uint32_t>(out_.kernel_names.size()));
      if (added) out_.kernel_names.push_back(kernel);
      m.kernel_names.push_back(it->second);
    }
    for (KernelInterval k : in.kernels) {
      if (k.name >= m.kernel_names.size()) continue;
      k.name = m.kernel_names[k.name];
      k.run = m.run(k.run);
      k.begin_ns += m.shift_ns;
      k.end_ns += m.shift_ns;
      out_.kernels.push_back(k);
    }
  }

  // Ranks on one device (every CPU rank is device -1) add up their baselines.
  void mergeDevices(size_t i) {
    for (const DeviceInfo& d : ranks_[i].trace.devices) {
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

  // Interleaves the ranks' events by time, each rank in its own order (few ranks: a linear
  // scan for the earliest head is cheaper than a heap).
  void mergeEventsAndCounters() {
    size_t total = 0;
    for (const RankTrace& r : ranks_) total += r.trace.events.size();
    out_.events.reserve(total);
    std::vector<size_t> next(ranks_.size(), 0);
    // New index of every event, for the ranks whose counters point at events.
    std::vector<std::vector<uint64_t>> new_index(ranks_.size());
    for (size_t i = 0; i < ranks_.size(); ++i)
      if (!ranks_[i].trace.counters.empty()) new_index[i].resize(ranks_[i].trace.events.size());

    for (size_t n = 0; n < total; ++n) {
      size_t pick = ranks_.size();
      int64_t pick_t = 0;
      for (size_t i = 0; i < ranks_.size(); ++i) {
        const EventStore& ev = ranks_[i].trace.events;
        if (next[i] == ev.size()) continue;
        const int64_t t = ev.tNs()[next[i]] + maps_[i].shift_ns;
        if (pick == ranks_.size() || t < pick_t) pick = i, pick_t = t;
      }
      const RankMap& m = maps_[pick];
      Event e = ranks_[pick].trace.events.at(next[pick]);
      e.t_ns = pick_t;
      if (e.phase != kNoPhase)
        e.phase = e.phase < ranks_[pick].trace.phases.size() ? e.phase + m.first_phase : kNoPhase;
      if (e.stack != kNoStack) e.stack = e.stack < m.stacks.size() ? m.stacks[e.stack] : kNoStack;
      e.run = m.run(e.run);
      if (!new_index[pick].empty()) new_index[pick][next[pick]] = out_.events.size();
      out_.events.push(e);
      ++next[pick];
    }

    for (size_t i = 0; i < ranks_.size(); ++i)
      for (Counter c : ranks_[i].trace.counters) {
        for (uint64_t& after : c.after_event)
          if (after < new_index[i].size()) after = new_index[i][after];
        out_.counters.push_back(std::move(c));
      }
  }

  std::span<const RankTrace> ranks_;
  std::vector<RankMap> maps_;
  std::unordered_map<std::string, uint32_t> kernel_ids_;
  Trace out_;
};

}  // namespace

Result<Trace> mergeRankTraces(std::span<const RankTrace> ranks) { return Merger(ranks).merge(); }

Status mergeRankFiles(std::span<const std::string> rank_paths, const std::string& out_path) {
  std::vector<RankTrace> ranks;
  for (size_t r = 0; r < rank_paths.size(); ++r) {
    auto trace = readNative(rank_paths[r]);
    if (!trace) return Error{fmt::format("rank {}: {}", r, trace.error().message)};
    ranks.push_back(RankTrace{static_cast<int>(r), std::move(*trace)});
  }
  auto merged = mergeRankTraces(ranks);
  if (!merged) return merged.error();
  ranks.clear();
  return writeNative(*merged, out_path);
}

}  // namespace sawtooth
