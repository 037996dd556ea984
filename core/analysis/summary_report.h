#pragma once
// The report figures (trace_report.h) of a trace read on demand (issue 25) that need every event:
// each category's peak, for the plan against the count, and the first out-of-memory, for its
// post-mortem. One pass over the allocator events (memory bounded by the devices, progress and
// cancellation) finds both; the post-mortem then replays the failure's moment from the nearest
// stored allocator state (summary_moment.h), so its figures are those of the trace read whole.

#include <cstdint>
#include <map>
#include <optional>

#include "core/analysis/category_series.h"
#include "core/analysis/summary_moment.h"
#include "core/analysis/trace_report.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct WholeTraceFacts {
  std::map<DeviceId, CategoryPeaks> category_peaks;  // every device with allocator events
  struct Oom {
    DeviceId device = 0;
    uint64_t seq = 0;
  };
  std::optional<Oom> first_oom;
  uint64_t ooms = 0;
};

// `tables`: the trace without its events (the devices' baselines count as unknown, as in memory).
// From the summaries' indexes where they hold them (indexedFacts), otherwise by the pass.
Result<WholeTraceFacts> wholeTraceFacts(summary::SummarySource& source, const Trace& tables,
                                        Progress* progress = nullptr);
// The pass over every allocator event.
Result<WholeTraceFacts> wholeTraceFactsByPass(summary::SummarySource& source, const Trace& tables,
                                              Progress* progress = nullptr);
// The facts from the summaries alone: the out-of-memory index and each device's category peaks;
// nothing where either is missing or a device's peaks are not exact (a file written before the
// summaries kept them, or a category learnt too late to keep them).
Result<std::optional<WholeTraceFacts>> indexedFacts(summary::SummarySource& source);

// The out-of-memory events from the summaries' index (no pass over the events): the first and how
// many (facts without category peaks); nothing when the summaries keep no index (a file written
// before it had one: wholeTraceFacts finds them).
Result<std::optional<WholeTraceFacts>> indexedOoms(summary::SummarySource& source);

// An out-of-memory's post-mortem and the moment it was made from (whose segment map explains it).
struct OomPostMortem {
  OomReport report;
  SummaryMoment moment;
};
Result<OomPostMortem> oomPostMortem(TimelineModel& model, const Trace& tables, const WholeTraceFacts::Oom& oom,
                                    Progress* progress = nullptr);

// The plan rows (the device as buildTraceReport picks it) and the first out-of-memory's
// post-mortem, added to a report of the runs' figures (runFiguresReport).
Status addWholeTraceFigures(TraceReport& report, TimelineModel& model, const Trace& tables,
                            const WholeTraceFacts& facts, Progress* progress = nullptr);

}  // namespace sawtooth
