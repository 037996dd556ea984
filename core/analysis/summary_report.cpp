#include "core/analysis/summary_report.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/analysis/allocator_rules.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

constexpr uint64_t kSeqsPerRead = 65536;

}  // namespace

// The report from the moment: the blocks alive then that were allocated in the trace, the largest
// first, with their allocation's time and phase read by seq.
Result<OomPostMortem> oomPostMortem(TimelineModel& model, const Trace& tables, const WholeTraceFacts::Oom& oom,
                                    Progress* progress) {
  auto position = model.pointOfSeq(oom.device, oom.seq);
  if (!position) return position.error();
  auto moment = momentFromSummaries(model, tables, oom.device, *position, progress);
  if (!moment) return moment.error();
  if (!moment->event || moment->event->action != Action::Oom)
    return Error{fmt::format("the summaries' allocator event {} of {} is not the out-of-memory event {}", *position,
                             tables.deviceName(oom.device), oom.seq)};
  OomReport r = oomReportOf(tables, oom.device, *moment->event, oom.seq, moment->position);
  auto allocated = model.valueAfter(oom.device, summary::kAllocated, moment->position);
  if (!allocated) return allocated.error();
  r.allocated = *allocated;
  std::vector<LiveBlock> blocks;
  for (const LiveAllocation& a : moment->live.allocations)
    if (a.alloc_event != kBeforeTrace) blocks.push_back(LiveBlock{a.address, a.bytes, a.category, a.alloc_event, a.stack});
  std::sort(blocks.begin(), blocks.end(), [](const LiveBlock& a, const LiveBlock& b) {
    return a.size != b.size ? a.size > b.size : a.alloc_event < b.alloc_event;
  });
  r.live_blocks = blocks.size();
  for (const LiveBlock& b : blocks) r.itemised = wrappingAdd(r.itemised, b.size);
  r.blocks = oomBlocksColumns();
  std::vector<summary::EventRow> rows;
  for (size_t i = 0; i < blocks.size() && i < kMaxOomBlocks; ++i) {
    if (Status st = model.source().events(blocks[i].alloc_event, blocks[i].alloc_event, std::nullopt, std::nullopt, rows); !st)
      return st.error();
    if (rows.empty()) return Error{fmt::format("the allocation event {} of a live block is not in the file", blocks[i].alloc_event)};
    const Event& alloc = rows.front().event;
    std::optional<std::string> phase;
    if (alloc.phase != kNoPhase) {
      auto name = model.source().phaseName(alloc.phase);
      if (!name) return name.error();
      phase = std::move(*name);
    }
    addOomBlock(r.blocks, tables, blocks[i], alloc.t_ns, phase);
  }
  return OomPostMortem{std::move(r), std::move(*moment)};
}

Result<std::optional<WholeTraceFacts>> indexedOoms(summary::SummarySource& source) {
  auto ooms = source.ooms(1);
  if (!ooms) return ooms.error();
  if (!*ooms) return std::optional<WholeTraceFacts>();
  WholeTraceFacts facts;
  facts.ooms = (*ooms)->count;
  if (!(*ooms)->first.empty()) facts.first_oom = WholeTraceFacts::Oom{(*ooms)->first[0].first, (*ooms)->first[0].second};
  return std::optional<WholeTraceFacts>(std::move(facts));
}

Result<std::optional<WholeTraceFacts>> indexedFacts(summary::SummarySource& source) {
  auto facts = indexedOoms(source);
  if (!facts) return facts.error();
  if (!*facts) return std::optional<WholeTraceFacts>();
  auto rows = source.categoryPeaks();
  if (!rows) return rows.error();
  if (!*rows) return std::optional<WholeTraceFacts>();
  for (const summary::CategoryPeaksRow& row : **rows) {
    if (!row.exact) return std::optional<WholeTraceFacts>();
    CategoryPeaks& peaks = (*facts)->category_peaks[row.device];
    peaks.peak = row.peak;
    peaks.any_categorised = row.categorised;
  }
  return facts;
}

Result<WholeTraceFacts> wholeTraceFacts(summary::SummarySource& source, const Trace& tables, Progress* progress) {
  auto indexed = indexedFacts(source);
  if (!indexed) return indexed.error();
  if (*indexed) {
    if (progress) progress->report(1, 1);
    return std::move(**indexed);
  }
  return wholeTraceFactsByPass(source, tables, progress);
}

Result<WholeTraceFacts> wholeTraceFactsByPass(summary::SummarySource& source, const Trace& tables, Progress* progress) {
  auto count = source.eventCount();
  if (!count) return count.error();
  WholeTraceFacts facts;
  std::map<DeviceId, std::array<int64_t, kCategoryCount>> live;
  std::vector<summary::AllocatorRow> rows;
  for (uint64_t from = 0; from < *count;) {
    if (progress && progress->cancelled()) return Error{"cancelled"};
    const uint64_t last = std::min(*count - 1, from + (kSeqsPerRead - 1));
    if (Status st = source.allocatorEvents(std::nullopt, from, last, rows); !st) return st.error();
    for (const summary::AllocatorRow& e : rows) {
      auto [it, fresh] = live.try_emplace(e.device);
      CategoryPeaks& peaks = facts.category_peaks[e.device];
      if (fresh) {
        if (const DeviceInfo* info = tables.device(e.device)) it->second[0] = info->baseline_allocated;
        peaks.peak = it->second;
      }
      if (e.action == Action::Oom) {
        if (!facts.first_oom) facts.first_oom = WholeTraceFacts::Oom{e.device, e.seq};
        ++facts.ooms;
      }
      const int sign = allocatedSign(e.action);
      if (sign == 0) continue;
      const auto c = static_cast<size_t>(e.category) < kCategoryCount ? static_cast<size_t>(e.category) : 0;
      if (c != 0) peaks.any_categorised = true;
      it->second[c] = wrappingAdd(it->second[c], wrappingMul(sign, e.size));
      peaks.peak[c] = std::max(peaks.peak[c], it->second[c]);
    }
    if (progress) progress->report(last + 1, *count);
    from = last + 1;
  }
  return facts;
}

Status addWholeTraceFigures(TraceReport& report, TimelineModel& model, const Trace& tables, const WholeTraceFacts& facts,
                            Progress* progress) {
  report.plan_device = facts.category_peaks.count(0) ? 0 : kCpuDevice;
  if (auto it = facts.category_peaks.find(report.plan_device); it != facts.category_peaks.end())
    report.plan_rows = anatomyPlan(tables, it->second);
  else
    report.plan_rows = anatomyPlan(tables, CategoryPeaks{});
  if (facts.first_oom) {
    auto oom = oomPostMortem(model, tables, *facts.first_oom, progress);
    if (!oom) return oom.error();
    report.oom = std::move(oom->report);
  }
  return Ok{};
}

}  // namespace sawtooth
