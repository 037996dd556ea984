#pragma once
// The events table of a .sawtooth file too large to read whole (issue 25), a page at a time.
// select() makes one pass over the file for a filter (the EventMatcher the in-memory table uses,
// core/analysis/event_query.h) and keeps every kStride-th match's seq; a page is then one ranged
// query from the nearest of them, whatever the file's length. Rows are in event order, ascending
// or descending (sort by #). A sort by another column keeps, in the same one pass, the first
// kMaxSortedRows rows in its order (the largest allocations, the latest events...; a bounded heap,
// never every event), and its pages are read by seq; a sort by phase reads the phases' names once
// (a few distinct names, an index per phase, within the memory budget). Each call opens its own read-only connection (one job's
// thread); the object itself is immutable.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/event_page.h"
#include "core/analysis/event_query.h"
#include "core/io/native_event_reader.h"
#include "core/io/native_open.h"
#include "core/io/read_limits.h"
#include "core/model/event_store.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

class EventPages {
 public:
  static constexpr uint64_t kStride = 1024;
  static constexpr size_t kMaxPageRows = 65536;
  static constexpr size_t kMaxSortedRows = 100000;

  // Reads the file's tables but its events (the names the filter and the columns need) and its
  // events' range.
  static Result<std::shared_ptr<const EventPages>> open(const std::string& path, const ReadLimits& limits = {});

  // The devices, runs and stacks, without events or phases (a long recording has millions of
  // phases: a page reads its rows' names, a filter on phases their names once).
  const std::shared_ptr<const Trace>& tables() const { return tables_; }
  uint64_t events() const { return events_; }

  // A filter or a sort by a column reads every event once (progress, cancellation); neither reads none.
  Result<EventPageRows> select(const EventQuery& query, Progress* progress = nullptr) const;
  // At most kMaxPageRows rows; fewer at the end.
  Result<EventPage> page(const EventPageRows& rows, uint64_t first_row, size_t count) const;

 private:
  EventPages() = default;
  Result<sql::Database> connect(const ReadBudget& budget, const Progress* progress) const;
  // Ascending rows [first, first + count) of `rows`.
  Result<EventPage> ascending(const EventPageRows& rows, uint64_t first, size_t count) const;
  // Rows [first, first + count) of a sort by a column, each read by its seq.
  Result<EventPage> sortedPage(const EventPageRows& rows, uint64_t first, size_t count) const;
  // One decoded row of a page query (pageSql with the phase's name) onto `page`.
  void addRow(const sql::Statement& st, int64_t seq, const Event& e, EventPage& page) const;
  Result<PhaseNames> readPhaseNames(sql::Database& db, ReadBudget& budget) const;

  std::string path_;
  ReadLimits limits_;
  native::Source source_;
  std::shared_ptr<const Trace> tables_;
  EventColumns columns_;
  int64_t first_seq_ = 0;
  uint64_t events_ = 0;
};

}  // namespace sawtooth
