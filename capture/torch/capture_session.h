#pragma once
// One recording: every capture source, stamped on one clock, drained by the writer thread into
// one .sawtooth file. Workloads talk to it through runs, steps, phases and tags; nothing here
// exposes LibTorch types, so this header is cheap to include.
//
// Memory between the sources and the writer is bounded: one queue per source (capacities and
// bytes in capture_session.cpp, stated in README), with queue_policy.h's wait-then-drop policy
// when the writer falls behind; the file says exactly how many records were dropped.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/io/output_claim.h"
#include "core/model/trace.h"
#include "core/util/result.h"
#include "capture/torch/allocator_sources.h"
#include "capture/writer/capture_window.h"

namespace sawtooth::capture {

struct SessionOptions {
  bool cuda = false;
  int cuda_device = 0;
  StackMode stacks = StackMode::None;
  // Sources, each on by default; the overhead benchmark turns them off.
  bool allocator_tracker = true;
  bool memory_reporter = true;
  bool cupti = true;
  bool cupti_kernels = true;
  bool sampler = true;
  int sample_interval_ms = 50;  // device samples on a timer (0: at phase boundaries only)
  int batch_interval_ms = 25;  // a SIGKILL loses at most about this much (and the hold-back)
  WindowOptions window;
  // Set when a write fails (a full disk): the workload checks it between steps and stops.
  std::atomic<bool>* stop_on_write_failure = nullptr;
};

class CaptureSession {
 public:
  // Writes to the claimed output path (output_claim.h).
  static Result<std::unique_ptr<CaptureSession>> start(const SessionOptions& options, OutputClaim output);
  ~CaptureSession();

  // Runs group a workload's configurations (fp32 / bf16, store-all / checkpointed, k = 1..8).
  uint16_t beginRun(const std::string& name, const std::string& workload,
                    std::vector<std::pair<std::string, std::string>> config);
  void endRun(std::vector<Measurement> measurements);
  void addMeasurements(std::vector<Measurement> measurements);  // to the open run

  // A training step begins: steps are numbered 0, 1, ... in the order the workload runs them,
  // across its runs (what --steps A:B counts).
  void beginStep();
  int64_t stepsBegun() const { return next_step_; }

  void beginPhase(const std::string& name);
  void endPhase();

  // The live block holding `data` belongs to `category` (parameters, gradients, optimizer
  // state, inputs: known by their data pointers).
  // `module`: the module whose parameter (or its gradient, or its optimizer state) the block is.
  void tag(const void* data, int16_t device, Category category, uint32_t module = kNoModule);

  // The workload's own modules (issue 23). defineModule gives each an id (a parent before its
  // children); enterModule/exitModule mark a call of one on this thread — a forward, or a
  // recompute when autograd runs it inside backward. Every allocation belongs to the innermost
  // module open on the thread that made it; one made while autograd runs a node belongs to the
  // module whose call made that node (its sequence number: sequence_map.h).
  uint32_t defineModule(Module module);
  void enterModule(uint32_t module);
  void exitModule(uint32_t module);

  void sampleDevice();  // a device-memory sample now (phase boundaries call it too)
  void resetPeaks();
  int64_t peakAllocated(int16_t device) const;    // since resetPeaks, from the capture itself
  int64_t currentAllocated(int16_t device) const;

  void setMeta(const std::string& key, const std::string& value);
  // What each source saw and dropped, for the progress stream and the file's meta table
  // (final once finish() has run).
  std::string sourcesSummary() const;
  const SessionOptions& options() const { return options_; }

  // True once a write to the file has failed (a full disk): the sources have stopped, the
  // workload should stop too. writeError() says what happened, writeErrno() the errno.
  bool writeFailed() const;
  std::string writeError() const;
  int writeErrno() const;

  // Stops the sources, writes everything left, says how the recording ended (an empty reason:
  // complete; else interrupted, disk full, ... with a detail for people) and closes the file.
  Status finish(const std::string& incomplete_reason = {}, const std::string& detail = {});

 private:
  struct Impl;
  explicit CaptureSession(std::unique_ptr<Impl> impl, SessionOptions options);
  std::unique_ptr<Impl> impl_;
  SessionOptions options_;
  int64_t next_step_ = 0;
};

// RAII mark of one call of a module (a session may be null: nothing is marked).
class ModuleScope {
 public:
  ModuleScope(CaptureSession* session, uint32_t module) : session_(session), module_(module) {
    if (session_ && module_ != kNoModule) session_->enterModule(module_);
  }
  ~ModuleScope() {
    if (session_ && module_ != kNoModule) session_->exitModule(module_);
  }
  ModuleScope(const ModuleScope&) = delete;
  ModuleScope& operator=(const ModuleScope&) = delete;

 private:
  CaptureSession* session_;
  uint32_t module_;
};

// RAII phase marker.
class PhaseScope {
 public:
  PhaseScope(CaptureSession& session, const std::string& name) : session_(session) { session_.beginPhase(name); }
  ~PhaseScope() { session_.endPhase(); }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  CaptureSession& session_;
};

}  // namespace sawtooth::capture
