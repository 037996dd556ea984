#pragma once
// A .sawtooth file's summaries (format 3; core/analysis/summary_builder.h) from the events it
// holds: one pass over the events table in seq order, memory bounded by the summaries' working
// state (and by the phases and a source's counters, which are read whole), never by the events.
// Built when a recorder finishes a window whose start moved, when an older file or one whose
// summaries are missing or wrong is summarised into the cache (io/summary_cache.h), and compared
// with what a file holds (checkSummaries).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/allocator_rules.h"
#include "core/analysis/allocator_state.h"
#include "core/io/sqlite_db.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth::native {

struct RebuildOptions {
  bool allocator_checkpoints = true;
  // The allocator's state before a device's first event where it is not empty (a snapshot's,
  // reconstructed from the whole trace by the caller).
  std::map<DeviceId, std::pair<AllocatorState, AllocatorSettings>> allocator_starts;
};

// The summary tables of `summaries` (they must exist; emptied first) filled from the events of
// `events` (the same connection, or the file a cache is for), inside the caller's transaction.
// Returns the number of events covered (max seq + 1).
Result<uint64_t> rebuildSummaries(sql::Database& events, sql::Database& summaries, const RebuildOptions& options,
                                  Progress* progress);

// What a file's summaries say against what its events give.
struct SummaryCheck {
  uint64_t events = 0;          // max seq + 1
  uint64_t covered = 0;         // summary.events: the events the summaries say they cover
  size_t differences = 0;       // rows that differ, are missing or are extra
  std::vector<std::string> first_differences;  // the first few, in words
  bool agree() const { return differences == 0 && covered == events; }
};

// Quick (no pass over the events): the summaries cover every event, and each series' top node
// ends where the series does. Empty when they look whole; otherwise what is wrong, in words.
Result<std::string> quickSummaryCheck(sql::Database& events, sql::Database& summaries);
// Thorough: the summaries built again from the events (one pass) and compared row by row.
Result<SummaryCheck> checkSummaries(sql::Database& events, sql::Database& summaries, const RebuildOptions& options,
                                    Progress* progress);

// The summary tables' names (io/native_schema.h), for creating and emptying them: those every file
// of format 3 holds.
const std::vector<std::string>& summaryTables();
// The summary tables added after format 3 first shipped (summary_ooms, summary_category_peaks): a
// file may lack them; writing its summaries again creates them.
const std::vector<std::string>& laterSummaryTables();

}  // namespace sawtooth::native
