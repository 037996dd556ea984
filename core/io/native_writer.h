#pragma once
// Writing a .sawtooth file: an SQLite database (WAL) that anyone can query with sqlite3.
// NativeWriter appends incrementally in batched transactions (the recorder's writer thread uses
// it, so a killed recording keeps every committed batch); writeNative() (native_format.h) saves
// a whole trace through it. Any source of events can feed it: it knows nothing of LibTorch.
//
// Speed: events go in through one prepared multi-row INSERT per 32 events inside the caller's
// transaction; the events table has no index but its integer key (seq, the rowid, appended in
// order); synchronous=OFF while recording, because what a killed process wrote is in the page
// cache and survives it (only a power loss could lose the last batches, and finish() syncs).
// Measured beside raw SQLite and write() in bench/capture/bench_writer.cpp.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/analysis/allocator_rules.h"
#include "core/analysis/allocator_state.h"
#include "core/io/native_schema.h"
#include "core/io/output_claim.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct NativeWriterOptions {
  // A recording writes meta.complete = false (incomplete_reason = killed) at once, and
  // finish(reason) says how it ended; a saved trace (writeNative) is written whole.
  bool recording = false;
  // The summaries (format 3: docs/sawtooth-format.md) grow with the events, batch by batch, in
  // the same transactions. Off: they are built from the events when the file is finished (a
  // window of the last N events, whose start moves).
  bool summaries_as_written = true;
  // No summaries at all: a file readers must summarise themselves (what the writer's benchmark
  // measures the summaries' cost against).
  bool summaries = true;
  // The allocator's state every N allocator events of a device (the segment map's checkpoints).
  bool allocator_checkpoints = true;
};

// Net allocated and reserved bytes of the allocator events in a range of the events table.
struct AllocatorNet {
  int16_t device = 0;
  int64_t allocated = 0;
  int64_t reserved = 0;
};

class NativeWriter {
 public:
  // Claims the path (output_claim.h), then creates the file and its schema.
  static Result<std::unique_ptr<NativeWriter>> create(const std::string& path,
                                                      OutputClaim::Existing existing = OutputClaim::Existing::Replace,
                                                      NativeWriterOptions options = {});
  static Result<std::unique_ptr<NativeWriter>> create(OutputClaim claim, NativeWriterOptions options = {});
  ~NativeWriter();

  Status setMeta(const std::string& key, const std::string& value);
  Status eraseMeta(const std::string& key);
  Status writeDevice(const DeviceInfo& device);
  Status writeRun(uint16_t id, const Run& run);
  // `open`: the phase has begun and not ended yet (it is written again when it ends).
  Status writePhase(uint32_t id, const Phase& phase, bool open = false);
  // Where the steps begin (core/analysis/step_alignment.h), for the steps' summaries; without
  // this, each phase named "forward" begins one. Before any event.
  void setStepStarts(std::vector<int64_t> starts);
  // The allocator's state before a device's first event (a snapshot's, reconstructed), for the
  // segment map's checkpoints. Before any event of the device.
  void setAllocatorStart(DeviceId device, const AllocatorState& state, const AllocatorSettings& settings);
  // Frames and stacks from the given ids on (tables only grow).
  Status writeStacks(const StackTable& stacks, size_t first_frame, size_t first_stack);
  Status writeCounter(const Counter& counter);
  Status writeKernelName(uint32_t id, const std::string& name);
  Status appendKernels(std::span<const KernelInterval> kernels);
  // The allocator's segments at the trace's end (Trace::segments), marking them known.
  Status writeSegments(const std::vector<SnapshotSegment>& segments);
  // Attribution that arrives after an event was written (the recorder learns an allocation's
  // category when the workload names the tensor, or when the block dies).
  Status updateCategory(size_t seq, Category category);
  // The same for the module the bytes belong to (a parameter's block is its module's).
  Status updateModule(size_t seq, uint32_t module);
  // The module tree (a parent before its children) and the modules' calls.
  Status writeModule(uint32_t id, const Module& module);
  Status appendModuleCalls(std::span<const ModuleCall> calls);
  // Events [begin, end) of the store, with sequence numbers equal to their index.
  Status appendEvents(const EventStore& events, size_t begin, size_t end, Progress* progress = nullptr);
  // The same, numbering the first one `first_seq` (the recorder writes batch by batch).
  Status appendEventsAt(const EventStore& events, size_t begin, size_t end, uint64_t first_seq,
                        Progress* progress = nullptr);

  // A window of the recording (the last N events): what the events [from, to) added to the
  // allocated and reserved series per device, then their removal, and the kernels that ended
  // before a time.
  Result<std::vector<AllocatorNet>> allocatorNet(uint64_t from_seq, uint64_t to_seq);
  Result<int64_t> eventTime(uint64_t seq);
  Status deleteEventsBefore(uint64_t seq);
  Status deleteKernelsEndingBefore(int64_t t_ns);
  // Renumbers the events from 0 (those left start at first_seq), as readers expect of a finished file.
  Status renumberEventsFrom(uint64_t first_seq);
  // Events the summaries cover so far (all written, unless they are built at the end).
  uint64_t summarisedEvents() const;

  Status beginBatch();
  Status commitBatch();
  // Leaves an open batch uncommitted (after a failed write).
  void rollbackBatch();
  // Commits, records how a recording ended (empty: complete; else the reason and its detail),
  // and turns the file into a self-contained database (no -wal/-shm files) when it can.
  Status finish(const std::string& incomplete_reason = {}, const std::string& detail = {});

  // The operating system's error number of the last failed write (ENOSPC, EDQUOT, EFBIG, ...).
  int lastErrno() const;
  const std::string& path() const;

 private:
  struct Impl;
  explicit NativeWriter(std::unique_ptr<Impl> impl);
  Status recordEnding(const std::string& incomplete_reason, const std::string& detail);
  Status summariseRow(uint64_t seq, const EventStore& events, size_t i);
  Status flushSummaries();
  Status finishSummaries();
  void keepWalReserve();
  std::unique_ptr<Impl> impl_;
};

// What a failed write means to a user: "disk full", "disk quota exceeded", "file size limit"
// for the errors that stop a recording as a full disk does; empty for any other error.
std::string diskFullReason(int error_number);
// The cause of a failed write in words a user can act on ("the file size limit was reached:
// RLIMIT_FSIZE (ulimit -f) allows 16384 bytes", "the disk is full: ..."), or empty.
std::string writeFailureCause(int error_number);

// Marks a recording that its recorder could not close itself (killed, crashed), keeping every
// committed batch, and makes it self-contained. Used by whoever watched the recorder die.
Status markIncomplete(const std::string& path, const std::string& reason, const std::string& detail);

}  // namespace sawtooth
