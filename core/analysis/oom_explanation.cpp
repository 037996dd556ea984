#include "core/analysis/oom_explanation.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/util/format_bytes.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

std::string poolName(bool small) { return small ? "small pool" : "large pool"; }

// The run of neighbouring blocks at least `need` bytes long with the fewest bytes in use.
std::optional<OomObstacle> bestWindow(const SegmentView& seg, int64_t need) {
  const auto& b = seg.blocks;
  std::optional<OomObstacle> best;
  int64_t size = 0, used = 0;
  size_t first = 0;
  for (size_t last = 0; last < b.size(); ++last) {
    size = wrappingAdd(size, b[last].size);
    if (b[last].active()) used = wrappingAdd(used, b[last].size);
    // Drop blocks from the front while the window stays large enough.
    while (first < last && wrappingSub(size, b[first].size) >= need) {
      size = wrappingSub(size, b[first].size);
      if (b[first].active()) used = wrappingSub(used, b[first].size);
      ++first;
    }
    if (size < need || (best && used >= best->blocking_bytes)) continue;
    OomObstacle o;
    o.segment = seg.address;
    o.window_address = b[first].address;
    o.window_bytes = size;
    o.blocking_bytes = used;
    for (size_t i = first; i <= last; ++i)
      if (b[i].active()) o.blocks.push_back(b[i]);
    best = std::move(o);
  }
  return best;
}

}  // namespace

OomExplanation explainOom(const Trace& trace, const AllocatorHistory& history, int64_t position, SiteNamer& names) {
  const uint64_t event = history.events().at(static_cast<size_t>(position));
  // An OOM changes nothing: the state after it is the state it failed in.
  return explainOom(trace.events.at(event), event, position, history.stateAfter(position), history.settings(), names);
}

OomExplanation explainOom(const Event& e, uint64_t event, int64_t position, const AllocatorState& state,
                          const AllocatorSettings& settings, SiteNamer& names) {
  OomExplanation x;
  x.position = position;
  x.event = event;
  x.requested = e.size;
  x.device_free = static_cast<int64_t>(e.addr);
  x.stream = e.stream;
  x.small_pool = isSmallPoolSize(e.size);
  x.reserved = state.reserved;
  x.allocated = state.allocated_bytes;
  x.cached_free = state.free_bytes;
  x.pools = state.pools;
  for (const PoolFree& p : state.pools)
    if (p.small_pool == x.small_pool && p.stream == x.stream) {
      x.pool_free = p.free_bytes;
      x.largest_free = p.largest_free_block;
    }
  bool expandable = false;
  for (const SegmentView& seg : state.segments) {
    expandable |= seg.expandable;
    if (seg.small_pool != x.small_pool || seg.stream != x.stream || seg.total_size < x.requested) continue;
    if (auto w = bestWindow(seg, x.requested)) x.in_the_way.push_back(std::move(*w));
  }
  std::sort(x.in_the_way.begin(), x.in_the_way.end(),
            [](const OomObstacle& a, const OomObstacle& b) { return a.blocking_bytes < b.blocking_bytes; });
  if (x.in_the_way.size() > 3) x.in_the_way.resize(3);

  const std::string where = fmt::format("{} ({})", streamLabel(x.stream), poolName(x.small_pool));
  if (x.pool_free > 0)
    x.summary = fmt::format("Asked for {} on {}: {} cached free there, but at most {} contiguous; the device had {} free.",
                            formatBytes(x.requested), where, formatBytes(x.pool_free), formatBytes(x.largest_free),
                            formatBytes(x.device_free));
  else
    x.summary = fmt::format("Asked for {} on {}: nothing cached free there, and the device had {} free for a new segment "
                            "of {}.",
                            formatBytes(x.requested), where, formatBytes(x.device_free),
                            formatBytes(segmentSizeFor(x.requested, settings)));
  if (const int64_t segment = segmentSizeFor(x.requested, settings); x.device_free >= segment)
    x.details.push_back(fmt::format("The device had room for a new segment of {}: a limit refused it "
                                    "(torch.cuda.set_per_process_memory_fraction), or that memory was taken when "
                                    "PyTorch asked for it.",
                                    formatBytes(segment)));
  x.details.push_back(fmt::format("Reserved {}: {} allocated, {} cached free in all pools and streams.",
                                  formatBytes(x.reserved), formatBytes(x.allocated), formatBytes(x.cached_free)));
  for (const PoolFree& p : x.pools)
    x.details.push_back(fmt::format("{}, {}: {} free of {} reserved in {} segment(s); largest free block {}.",
                                    streamLabel(p.stream), poolName(p.small_pool), formatBytes(p.free_bytes),
                                    formatBytes(p.reserved), p.segments, formatBytes(p.largest_free_block)));
  for (const OomObstacle& o : x.in_the_way) {
    std::vector<BlockView> blocks = o.blocks;
    std::sort(blocks.begin(), blocks.end(), [](const BlockView& a, const BlockView& b) { return a.size > b.size; });
    std::string who;
    for (size_t i = 0; i < blocks.size() && i < 3; ++i)
      who += fmt::format("{}{} ({})", i ? "; " : "", names.site(blocks[i].stack).label, formatBytes(blocks[i].size));
    if (blocks.size() > 3) who += fmt::format("; and {} more", blocks.size() - 3);
    x.details.push_back(fmt::format("In segment {:#x}: freeing {} block(s) in use ({}) would leave {} contiguous from "
                                    "{:#x}: {}.",
                                    o.segment, o.blocks.size(), formatBytes(o.blocking_bytes), formatBytes(o.window_bytes),
                                    o.window_address, who));
  }
  if (x.in_the_way.empty() && x.pool_free > 0)
    x.details.push_back(fmt::format("No segment of {} is as large as the request: only a new segment could hold it.", where));
  if (expandable)
    x.details.push_back("Expandable segments: the allocator can also map new pages after a segment, as far as the "
                        "device's free memory allows.");
  return x;
}

std::vector<OomExplanation> explainOoms(const Trace& trace, const AllocatorHistory& history) {
  std::vector<OomExplanation> out;
  SiteNamer names(trace.stacks);
  const auto& events = history.events();
  for (size_t p = 0; p < events.size(); ++p)
    if (trace.events.action()[events[p]] == Action::Oom)
      out.push_back(explainOom(trace, history, static_cast<int64_t>(p), names));
  return out;
}

}  // namespace sawtooth
