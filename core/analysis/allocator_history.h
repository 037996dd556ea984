#pragma once
// The caching allocator's state on one device at every allocator event, replayed from the state
// when the trace began (allocator_baseline.h) with the allocator's own rules (allocator_machine.h):
//   - stateAfter(i): segments and blocks after event i, fast anywhere in a 10 M-event trace
//     because the replay starts from the nearest checkpoint (a copy of the state every K events,
//     K doubling until the copies fit a memory budget), not from event 0;
//   - the derived series, one value per allocator event: allocated bytes as PyTorch counts them
//     (block sizes; torch.cuda.memory_allocated()), reserved − allocated, internal waste,
//     external fragmentation, the largest free block, and the largest free block per pool and
//     stream (changes only);
//   - a report: does the replay end exactly in the snapshot's own `segments`, what it had to
//     infer or work around.
// PyTorch's allocated bytes move by the block's size at alloc and at free_requested (a freed
// block waiting for another stream is no longer "allocated", only "active").

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/allocator_rules.h"
#include "core/analysis/allocator_state.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct ReplayOptions {
  bool series = true;       // the derived series: 8 bytes an event each (5 series)
  bool checkpoints = true;  // for stateAfter() anywhere; otherwise it replays from the start
  size_t checkpoint_budget_bytes = size_t{64} << 20;
  int64_t first_checkpoint_interval = 8192;  // events between checkpoints before any doubling
};

// One value after each allocator event of the device (position i), and the value before the first.
struct EventSeries {
  int64_t start = 0;
  std::vector<int64_t> values;
  int64_t after(int64_t position) const { return position < 0 || values.empty() ? start : values[static_cast<size_t>(position)]; }
};

// A step series that only records where it changes.
struct PoolLane {
  bool small_pool = false;
  uint64_t stream = 0;
  int64_t start = 0;
  std::vector<int64_t> position;  // allocator-event position of each change
  std::vector<int64_t> value;     // the value from that event on
};

struct AllocatorSeries {
  EventSeries allocated_bytes;  // block sizes: what torch.cuda.memory_allocated() says
  EventSeries reserved_minus_allocated;
  EventSeries internal_waste;   // handed-out bytes nobody asked for (rounding, unsplit remainders)
  EventSeries external_fragmentation;  // free bytes outside the largest free block
  EventSeries largest_free_block;
  std::vector<PoolLane> largest_free_by_pool;
};

struct ReplayReport {
  bool snapshot_checked = false;   // the trace carries the allocator's segments at its end
  bool matches_snapshot = false;   // the replay ends exactly in them (segments, blocks, states, sizes)
  std::vector<std::string> differences;  // the first few, when it does not
  size_t anomalies = 0;            // events the replay could not apply as they are
  std::vector<std::string> anomaly_notes;
  size_t inferred_blocks = 0;      // sizes guessed for blocks from before the trace, not pinned down
  int64_t inferred_bytes_max = 0;  // by how much those guesses could be short, together
  size_t resolved_blocks = 0;      // such sizes that later events pinned down
  bool settings_from_trace = false;
  int64_t peak_allocated_bytes = 0;
  int64_t peak_position = -1;      // allocator-event position where first reached; -1: the start
  uint64_t peak_event = kBeforeTrace;
  int64_t final_allocated_bytes = 0;

  // Every figure is PyTorch's own: checked against the snapshot, nothing guessed or worked around.
  bool exact() const { return (!snapshot_checked || matches_snapshot) && anomalies == 0 && inferred_blocks == 0; }
};

class AllocatorHistory {
 public:
  // `trace` must outlive the history (stateAfter replays its events).
  static Result<AllocatorHistory> build(const Trace& trace, int16_t device, const ReplayOptions& options = {},
                                        Progress* progress = nullptr);

  int16_t device() const { return device_; }
  // The device's allocator events (global indices); a position is an index into this.
  const std::vector<uint64_t>& events() const { return events_; }
  // The state after the allocator event at `position` (-1: when the trace began); clamped.
  AllocatorState stateAfter(int64_t position) const;
  AllocatorState finalState() const { return stateAfter(static_cast<int64_t>(events_.size()) - 1); }
  const AllocatorSeries& series() const { return series_; }
  const ReplayReport& report() const { return report_; }
  const AllocatorSettings& settings() const { return settings_; }
  size_t checkpointCount() const { return checkpoints_.size(); }
  size_t checkpointBytes() const;

 private:
  struct Checkpoint {
    int64_t position = 0;  // the state before this event
    AllocatorState state;
  };

  const Trace* trace_ = nullptr;
  int16_t device_ = 0;
  AllocatorSettings settings_;
  std::vector<uint64_t> events_;
  std::vector<Checkpoint> checkpoints_;
  AllocatorSeries series_;
  ReplayReport report_;
  friend class HistoryBuilder;
};

// The device's allocator events, in order (what a position counts).
std::vector<uint64_t> allocatorEvents(const Trace& trace, int16_t device);

// Where a replayed state and the snapshot's own segments disagree (empty: they agree) — segments
// (address, size, stream, pool, expandable) and their blocks (address, size, state, and the
// requested size of blocks in use). Pool ids are not compared: the trace does not carry them.
std::vector<std::string> compareWithSnapshot(const AllocatorState& state, const Trace& trace, size_t max_differences = 10);

// The peak of torch.cuda.memory_allocated() as PyTorch counts it (block sizes) on a device:
// from the replay, or from the source's own count (torch.profiler's "Total Allocated").
struct BlockBytesPeak {
  int64_t peak = 0;
  int64_t final = 0;
  std::string source;  // "replay" or "counter"
  bool exact = false;  // ReplayReport::exact(), or true for the source's own count
};
std::optional<BlockBytesPeak> allocatedBlockPeak(const Trace& trace, int16_t device);

}  // namespace sawtooth
