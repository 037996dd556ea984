#pragma once
// Following a .sawtooth file while a recorder writes it. The recorder commits a batch every few
// milliseconds in WAL mode; each poll opens the file read-only (as any WAL reader: nothing is
// created beside it), reads the events committed since the last poll by their seq (the table's
// rowid, so the cost is the new rows, not the file), and closes it again so that the writer can
// leave WAL mode when it finishes. The file is data: its schema is checked on every poll and every
// value of a row is checked before it is handed on.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/live_rows.h"
#include "core/util/result.h"

namespace sawtooth {

struct LiveBatch {
  bool ready = false;     // the file is a database with its tables (a recorder may not have made them yet)
  bool complete = false;  // no recorder holds the file any more and every row has been read
  bool more = false;      // the poll stopped at max_rows: more rows are waiting
  std::vector<LiveDevice> devices;  // every device the file lists so far
  std::vector<LiveRow> rows;        // the events committed since the previous poll, in seq order
  // A recording that keeps only its last N events (meta window.last_events; 0: every event): the
  // rows before its window are deleted as it goes, so the file holds about N of them at a time.
  uint64_t window_events = 0;
  // Such a recording deleted rows this reader had not read yet (it fell behind the window's cut;
  // meta window.first_kept_seq): no rows are read, and what was read before is not the file's any
  // more (the driver's allocations alive at the cut are rows at the window's start again). Read
  // the file again with a new LiveTail from its window's start.
  bool fell_behind = false;
};

class LiveTail {
 public:
  // At most max_rows events per poll (their memory), each poll's queries bounded by max_seconds.
  explicit LiveTail(std::string path, size_t max_rows = size_t{1} << 20, double max_seconds = 2.0);

  // At most `max_rows` this time as well (0: none, only whether the file is ready and complete).
  Result<LiveBatch> poll(size_t max_rows = SIZE_MAX);
  const std::string& path() const { return path_; }
  // Events read so far (the next poll starts after them).
  uint64_t eventsRead() const { return rows_read_; }

 private:
  std::string path_;
  size_t max_rows_;
  double max_seconds_;
  int64_t last_seq_ = INT64_MIN;  // the seq of the last event read
  uint64_t rows_read_ = 0;
};

}  // namespace sawtooth
