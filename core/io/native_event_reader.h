#pragma once
// The events table of a .sawtooth file, read by several SQLite connections at once, each over
// its own range of seq, straight into its place in the store. SQLite decodes a 12-column row in
// about 1,500 instructions, so one connection reads some 3 M rows/s; a 10 M-event file wants
// more than one core.

#include <cstddef>
#include <string>

#include "core/io/native_open.h"
#include "core/io/sqlite_db.h"
#include "core/io/read_limits.h"
#include "core/model/event_store.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct EventReadOptions {
  unsigned threads = 0;                       // 0: one per hardware thread, at most 8
  size_t min_rows_per_thread = size_t{1} << 20;  // smaller files are read by fewer threads
  bool events = true;  // false: every table but the events (what a reader streams them beside needs)
  // false: not the tables that grow with the run either (phases, counters, kernels, segments, module
  // calls): what names an event's device, run, stack and module, for a table read a page at a time.
  bool bulk_tables = true;
};

// What the events' ids point into, and whether the table has the module and pass columns.
struct EventColumns {
  size_t phase_count = 0;
  size_t stack_count = 0;
  bool modules = false;     // the table has module and pass columns (format 2 on: native_schema.h)
  size_t module_count = 0;  // the module tree's size; 0: every module must be NULL, and passes
                            // are not kept (the store then has no module columns, 49 bytes an event)
};

// The events table's columns as readEventRows reads them (after seq, which a query adds where it
// needs it), and one row of them decoded and checked into `e`: "" or why the row is refused,
// naming the file and the event.
std::string eventColumnsSql(bool modules);
std::string decodeEventRow(sql::Statement& st, const EventColumns& columns, uint64_t seq, const std::string& path,
                           Event& e, int first_column = 0);

// Fills `events` (emptied first) from the file's events table, each connection opened as
// `source` says and bounded by `guard`; the events count against `budget`. Every value must be
// an integer, every device -1 or more and within 32 bits. Phase and stack ids at or past
// phase_count / stack_count become kNoPhase / kNoStack; a module past the tree or a pass that is
// none is refused. Errors name the file and the event.
Status readEventRows(const native::Source& source, const std::shared_ptr<sql::Guard>& guard, ReadBudget& budget,
                     const EventColumns& columns, EventStore& events, Progress* progress,
                     const EventReadOptions& options = {});

}  // namespace sawtooth
