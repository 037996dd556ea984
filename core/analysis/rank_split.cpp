#include "core/analysis/rank_split.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace sawtooth {

std::vector<RankSlice> splitByRank(const Trace& trace) {
  std::vector<RankSlice> out;
  for (size_t r = 0; r < trace.runs.size(); ++r) {
    const auto rank_text = trace.runs[r].configValue("rank");
    int rank = 0;
    // A rank that is not a number is data, not a rank: the run is left out.
    if (!rank_text) continue;
    const char* end = rank_text->data() + rank_text->size();
    if (auto [stop, ec] = std::from_chars(rank_text->data(), end, rank); ec != std::errc() || stop != end) continue;
    const auto run = static_cast<uint16_t>(r);
    auto slice = std::make_shared<Trace>();
    slice->format = trace.format;
    slice->meta = trace.meta;
    slice->stacks = trace.stacks;
    slice->devices = trace.devices;
    slice->kernel_names = trace.kernel_names;
    slice->runs.push_back(trace.runs[r]);
    std::vector<uint32_t> phase_map(trace.phases.size(), kNoPhase);
    for (size_t p = 0; p < trace.phases.size(); ++p) {
      if (trace.phases[p].run != run) continue;
      Phase phase = trace.phases[p];
      phase.run = 0;
      phase_map[p] = static_cast<uint32_t>(slice->phases.size());
      slice->phases.push_back(std::move(phase));
    }
    const auto& ev = trace.events;
    for (size_t i = 0; i < ev.size(); ++i) {
      if (ev.run()[i] != run) continue;
      Event e = ev.at(i);
      e.run = 0;
      e.phase = e.phase < phase_map.size() ? phase_map[e.phase] : kNoPhase;
      slice->events.push(e);
    }
    for (KernelInterval k : trace.kernels)
      if (k.run == run) {
        k.run = 0;
        slice->kernels.push_back(k);
      }
    // The rank's own baseline: a merged trace starts every rank from nothing.
    for (auto& d : slice->devices) d.baseline_allocated = d.baseline_reserved = 0;
    out.push_back(RankSlice{rank, run, std::move(slice)});
  }
  std::sort(out.begin(), out.end(), [](const RankSlice& a, const RankSlice& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace sawtooth
