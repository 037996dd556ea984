#pragma once
// One recorded process' .sawtooth file, written live by the capture writer thread (committed
// batches a few times a second, WAL mode, so the app can follow it while it grows). The only
// place program recording uses the writer's API: records come in already in time order.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/trace.h"
#include "core/util/result.h"
#include "capture/writer/capture_record.h"
#include "capture/writer/capture_window.h"

namespace sawtooth::record {

// The stack a record carries, shared by every record with the same stack.
using StackFrames = std::vector<Frame>;

class ProgramTraceSink {
 public:
  // `window`: the file keeps steps A to B-1 and/or the last N events (capture_window.h); steps
  // begin at StepBegin records pushed with the others.
  static Result<std::unique_ptr<ProgramTraceSink>> create(const std::string& path, int64_t t0_ns, const Run& run,
                                                          const capture::WindowOptions& window = {});
  ~ProgramTraceSink();

  // Allocator events, samples, tags and phase markers, in time order. A stack travels in the
  // record's context as a shared StackFrames. Waits while the writer catches up (the program's
  // sender then waits on its socket); what still does not fit is counted as dropped.
  void push(capture::CaptureRecord record);
  // CUPTI's device memory: arrives late and is placed in its phase by time.
  void pushDriver(capture::CaptureRecord record);
  void addKernels(std::vector<KernelInterval> kernels, const std::vector<std::string>& names_by_id);
  // A new phase id for a PhaseBegin record (annotations: the program's own ranges).
  uint32_t definePhase(const std::string& name, PhaseKind kind);
  void setMeta(const std::string& key, const std::string& value);

  uint64_t dropped() const { return dropped_; }
  uint64_t written() const;
  // The last record's time (ns on the records' clock), for ending what is still open.
  int64_t lastTime() const { return last_t_; }
  // Closes the run and the file. Returns the first write error.
  Status finish();

 private:
  struct Impl;
  explicit ProgramTraceSink(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  uint64_t dropped_ = 0;
  int64_t last_t_ = 0;
};

}  // namespace sawtooth::record
