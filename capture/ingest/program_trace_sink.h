#pragma once
// One recorded process' .sawtooth file, written live by the capture writer thread (committed
// batches a few times a second, WAL mode, so the app can follow it while it grows). The only
// place program recording uses the writer's API: records come in already in time order.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "capture/ingest/interned_tables.h"
#include "capture/writer/bounded_queue.h"
#include "capture/writer/capture_record.h"
#include "capture/writer/capture_window.h"
#include "core/io/output_claim.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth::record {

class ProgramTraceSink {
 public:
  // Writes into the claimed path (created mode 0600: a recording holds the command line, the
  // working folder and environment entries). It says "incomplete: killed" until finish() says how
  // it ended. `window`: the file keeps steps A to B-1 and/or the last N events (capture_window.h);
  // steps begin at StepBegin records pushed with the others.
  static Result<std::unique_ptr<ProgramTraceSink>> create(OutputClaim claim, int64_t t0_ns, const Run& run,
                                                          const capture::WindowOptions& window = {});
  ~ProgramTraceSink();

  // Allocator events, samples, tags and phase markers, in time order. A stack travels in the
  // record's context as a shared StackFrames. Waits while the writer catches up (the program's
  // sender then waits on its socket), up to 10 s; then drops and counts without waiting until
  // the queue takes a record again.
  void push(capture::CaptureRecord record);
  // CUPTI's device memory: arrives late and is placed in its phase by time.
  void pushDriver(capture::CaptureRecord record);
  void addKernels(std::vector<KernelInterval> kernels, const std::vector<std::string>& names_by_id);
  // A new phase id for a PhaseBegin record (annotations: the program's own ranges).
  uint32_t definePhase(const std::string& name, PhaseKind kind);
  // The program's module `id` (dense from 0, a parent first), before any record names it.
  void defineModule(uint32_t id, const Module& module);
  void setMeta(const std::string& key, const std::string& value);

  uint64_t dropped() const { return dropped_; }
  // Writing failed (a full disk): the file keeps what it committed; what comes now is not written.
  bool failed() const;
  // After a failed write: "disk full", "disk quota exceeded", "file size limit reached" or "write error".
  std::string failureReason() const { return failure_reason_; }
  uint64_t written() const;
  // The last record's time (ns on the records' clock), for ending what is still open.
  int64_t lastTime() const { return last_t_; }
  // Closes the run and the file, saying how the recording ended (an empty reason: complete; a
  // write failure gives its own). Returns the first write error.
  Status finish(const std::string& incomplete_reason = {}, const std::string& detail = {});

 private:
  struct Impl;
  explicit ProgramTraceSink(std::unique_ptr<Impl> impl);
  bool pushInto(capture::BoundedQueue<capture::CaptureRecord>& queue, capture::CaptureRecord& record);
  std::unique_ptr<Impl> impl_;
  uint64_t dropped_ = 0;
  bool dropping_ = false;  // a wait timed out: drop without waiting until the queue takes one
  bool failed_at_finish_ = false;
  std::string failure_reason_;
  int64_t last_t_ = 0;
};

}  // namespace sawtooth::record
