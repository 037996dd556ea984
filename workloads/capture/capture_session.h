#pragma once
// One recording: every capture source, stamped on one clock, drained by the writer thread into
// one .sawtooth file. Workloads talk to it through runs, phases and tags; nothing here exposes
// LibTorch types, so this header is cheap to include.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/capture/allocator_sources.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth::capture {

struct SessionOptions {
  std::string out_path;
  bool cuda = false;
  int cuda_device = 0;
  StackMode stacks = StackMode::None;
  // Sources, each on by default; the overhead benchmark turns them off.
  bool allocator_tracker = true;
  bool memory_reporter = true;
  bool cupti = true;
  bool cupti_kernels = true;
  bool sampler = true;
  int sample_interval_ms = 50;
  int batch_interval_ms = 50;
};

class CaptureSession {
 public:
  static Result<std::unique_ptr<CaptureSession>> start(const SessionOptions& options);
  ~CaptureSession();

  // Runs group a workload's configurations (fp32 / bf16, store-all / checkpointed, k = 1..8).
  uint16_t beginRun(const std::string& name, const std::string& workload,
                    std::vector<std::pair<std::string, std::string>> config);
  void endRun(std::vector<Measurement> measurements);
  void addMeasurements(std::vector<Measurement> measurements);  // to the open run

  void beginPhase(const std::string& name);
  void endPhase();

  // The live block holding `data` belongs to `category` (parameters, gradients, optimizer
  // state, inputs: known by their data pointers).
  void tag(const void* data, int16_t device, Category category);

  void sampleDevice();  // a device-memory sample now (phase boundaries call it too)
  void resetPeaks();
  int64_t peakAllocated(int16_t device) const;    // since resetPeaks, from the capture itself
  int64_t currentAllocated(int16_t device) const;

  void setMeta(const std::string& key, const std::string& value);
  // What each source saw and dropped, for the progress stream and the file's meta table
  // (final once finish() has run).
  std::string sourcesSummary() const;
  const SessionOptions& options() const { return options_; }

  // Stops the sources, writes everything left and closes the file.
  Status finish();

 private:
  struct Impl;
  explicit CaptureSession(std::unique_ptr<Impl> impl, SessionOptions options);
  std::unique_ptr<Impl> impl_;
  SessionOptions options_;
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
