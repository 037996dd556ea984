#pragma once
// Which part of a recording the file keeps, as people profile long runs:
//   steps A to B  — only what happens from the start of step A to the start of step B;
//   the last N    — only the last N events (PyTorch's max_entries), the older ones deleted from
//                   the file as the recording goes, so that it stays bounded.
// What was alive when the window starts is its baseline, by the definition the snapshot
// importer uses for a snapshot whose trace starts mid-run: the devices table's
// baseline_allocated / baseline_reserved are the bytes the allocator events before the window
// add up to (every block still alive then), uncategorised; the driver's allocations alive then
// are written as allocation rows at the window's start (the file has no driver baseline).
// This class keeps the bookkeeping; the writer (trace_writer.h) applies it to the file.

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/io/native_writer.h"
#include "core/model/event_store.h"
#include "core/util/result.h"
#include "capture/writer/live_blocks.h"

namespace sawtooth::capture {

struct WindowOptions {
  uint64_t last_events = 0;  // keep only the last N events; 0 keeps everything
  int64_t first_step = 0;    // record from the start of this step (0: from the beginning)
  int64_t end_step = std::numeric_limits<int64_t>::max();  // up to the start of this one
  bool stepsLimited() const { return first_step > 0 || end_step != std::numeric_limits<int64_t>::max(); }
};

// --steps A:B and --window-events N into `window`, by core/recording's rules (the error names the option).
Status applyStepRange(const std::string& range, WindowOptions& window);
Status applyWindowEvents(int64_t events, WindowOptions& window);

class CaptureWindow {
 public:
  explicit CaptureWindow(WindowOptions options);

  const WindowOptions& options() const { return options_; }
  // Step `step` begins at t. Returns true when this opens the window.
  bool onStepBegin(int64_t step, int64_t t_ns);
  // The window opens at t (step A, or the start when no steps are given).
  void open(int64_t t_ns) { open_t_ = t_ns; }
  bool isOpen() const { return open_t_ != kNever; }
  bool closed() const { return close_t_ != kNever; }
  // Whether what happened at t belongs in the file.
  bool admits(int64_t t_ns) const { return t_ns >= open_t_ && t_ns < close_t_; }
  int64_t steps() const { return steps_seen_; }
  int64_t openTime() const { return open_t_; }

  // Every allocator event, written or not: the running totals the baseline starts from.
  void onAllocatorEvent(int16_t device, Action action, int64_t size);
  // Driver (CUPTI) allocations and frees, with the seq of their row (kNoSeq when not written).
  void onDriverEvent(const Event& e, uint64_t seq);

  // The baseline when the window opens at the current totals.
  void setBaselineToTotals();
  // The events [firstSeq(), cut) leave the file: their net bytes join the baseline.
  void addToBaseline(const std::vector<AllocatorNet>& removed);
  const std::map<int16_t, AllocatorNet>& baseline() const { return baseline_; }

  // Rows for the driver allocations alive at event `cut` that were made before it, stamped at t.
  // Forgets the driver frees before cut.
  std::vector<Event> driverRowsAt(uint64_t cut, int64_t t_ns);

  uint64_t firstSeq() const { return first_seq_; }
  void setFirstSeq(uint64_t seq) { first_seq_ = seq; }
  // How many of the rows at the file's start stand for the driver's allocations at the window's start.
  uint64_t rowsAtStart() const { return rows_at_start_; }
  void setRowsAtStart(uint64_t n) { rows_at_start_ = n; }
  uint64_t discarded() const { return discarded_; }
  void addDiscarded(uint64_t n) { discarded_ += n; }

 private:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  struct DriverBlock {
    int16_t device;
    uint64_t addr;
    int64_t size;
    uint64_t stream;
    uint64_t alloc_seq;
    uint64_t free_seq;  // kNoSeq while alive
  };
  WindowOptions options_;
  int64_t open_t_ = kNever;
  int64_t close_t_ = kNever;
  int64_t steps_seen_ = 0;
  std::map<int16_t, AllocatorNet> totals_, baseline_;
  std::map<std::pair<int16_t, uint64_t>, DriverBlock> driver_live_;
  std::deque<DriverBlock> driver_freed_;  // freed since the window's start, in order
  uint64_t first_seq_ = 0;
  uint64_t rows_at_start_ = 0;
  uint64_t discarded_ = 0;
};

}  // namespace sawtooth::capture
