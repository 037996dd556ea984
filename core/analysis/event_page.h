#pragma once
// The rows of the events table when a file is read a page at a time (core/io/event_pages.h reads
// them; views/events_table_model.h shows them): a query's rows, and one page of their events.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/event_query.h"
#include "core/model/event_store.h"

namespace sawtooth {

// The rows one query selects.
struct EventPageRows {
  EventQuery query;
  uint64_t size = 0;   // rows
  uint64_t total = 0;  // events in the file
  bool all = false;    // no filter: row r (ascending) is event r
  std::vector<int64_t> anchors;  // a filter: the seq of ascending rows 0, k, 2k, ... (k: EventPages::kStride)
  std::shared_ptr<const EventMatcher> matcher;  // a filter: what a page tests its rows with
  // Sorted by a column other than #: the seqs of the first rows in that order (at most
  // EventPages::kMaxSortedRows; ties in event order), all there is of them; `matching` counts every
  // event the filter let through, listed or not.
  bool by_column = false;
  std::vector<int64_t> sorted;
  uint64_t matching = 0;
};

// Rows [first_row, first_row + index.size()) of a query.
struct EventPage {
  uint64_t first_row = 0;
  std::vector<uint64_t> index;  // each row's event index (its seq from the file's first)
  EventStore events;
  std::vector<std::string> phase_names;  // each row's phase's name (the file's phases are not read whole)
};

}  // namespace sawtooth
