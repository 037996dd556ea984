#pragma once
// LibTorch helpers shared by the workloads: tagging tensors for attribution, fair timing, peak
// memory per run, autocast scopes, and PyTorch's multi-tensor ("foreach") SGD and Adam, written
// with the same ops in the same order as torch/optim so that memory and time compare 1:1 with
// the seed's Python. Include only from workload .cpp files (LibTorch headers are heavy).

#include <torch/torch.h>

#include <string>
#include <vector>

#include "capture/torch/capture_session.h"
#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {

using capture::PhaseScope;

torch::Device deviceOf(const WorkloadContext& ctx);
int16_t deviceIndex(const torch::Tensor& t);
void tag(capture::CaptureSession& session, const torch::Tensor& t, Category category);
void tagAll(capture::CaptureSession& session, const std::vector<torch::Tensor>& tensors, Category category);
void tagGradients(capture::CaptureSession& session, const std::vector<torch::Tensor>& params);
void synchronize(const WorkloadContext& ctx);

struct Stats {
  double median = 0, min = 0, max = 0;
};
Stats statsOf(std::vector<double> samples);
std::vector<Measurement> timeMeasurements(const std::string& name, const std::vector<double>& samples_ms);

// Times each call of `step` in milliseconds: CUDA events on the GPU, the steady clock on the CPU.
class StepTimer {
 public:
  explicit StepTimer(const WorkloadContext& ctx);
  ~StepTimer();
  template <typename F>
  void time(F&& step) {
    begin();
    step();
    end();
  }
  // Waits for the device and returns every sample.
  std::vector<double> samplesMs();

 private:
  void begin();
  void end();
  bool cuda_;
  std::vector<void*> events_;  // cudaEvent_t pairs
  std::vector<double> cpu_ms_;
  int64_t cpu_start_ = 0;
};

// Peak memory of a stretch of a run: from the capture's own counters, and on CUDA also PyTorch's
// max_memory_allocated for comparison.
class PeakWindow {
 public:
  explicit PeakWindow(const WorkloadContext& ctx);
  std::vector<Measurement> measurements(const std::string& prefix = "") const;
  int64_t peakAllocated() const;

 private:
  const WorkloadContext& ctx_;
};

// torch.autocast(device, dtype) as a scope: enable, dtype, cache, nesting; clear the cast cache
// when the outermost scope closes.
class AutocastScope {
 public:
  AutocastScope(const WorkloadContext& ctx, bool enabled, torch::ScalarType dtype);
  ~AutocastScope();

 private:
  c10::DeviceType device_;
  bool previous_enabled_;
  torch::ScalarType previous_dtype_;
  bool active_;
};

// torch.optim.SGD / Adam / AdamW with foreach=True (their default on CUDA), step counts on the host.
class ForeachOptimizer {
 public:
  enum class Kind { Sgd, Adam, AdamW };
  ForeachOptimizer(std::vector<torch::Tensor> params, Kind kind, double lr, double momentum = 0.0,
                   double weight_decay = 0.0);
  void zeroGrad();  // set_to_none=True
  void step();
  // The state tensors (momentum buffers, exp_avg, exp_avg_sq), for attribution.
  std::vector<torch::Tensor> state() const;
  // Each state tensor with the parameter it belongs to.
  std::vector<std::pair<torch::Tensor, torch::Tensor>> stateByParameter() const;
  // Bytes of optimizer state per parameter byte: SGD 0 (1 with momentum), Adam/AdamW 2.
  double stateFactor() const;
  static Kind parse(const std::string& name);

 private:
  std::vector<torch::Tensor> params_;
  Kind kind_;
  double lr_, momentum_, weight_decay_;
  double beta1_ = 0.9, beta2_ = 0.999, eps_ = 1e-8;
  int64_t steps_ = 0;
  std::vector<torch::Tensor> exp_avg_, exp_avg_sq_, momentum_buffers_;
  std::vector<torch::Tensor> state_params_;  // the parameter of each state tensor, by position
};

// Dynamic loss scaling for fp16 (torch.amp.GradScaler's defaults): scale the loss, unscale the
// gradients with an inf/NaN check, skip the step on overflow, grow or back off the scale.
class LossScaler {
 public:
  explicit LossScaler(const torch::Device& device, double init_scale = 65536.0, double growth = 2.0,
                      double backoff = 0.5, int64_t interval = 2000);
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Unscales, steps unless a gradient overflowed, updates the scale. Returns whether it stepped.
  bool step(ForeachOptimizer& optimizer, const std::vector<torch::Tensor>& params);
  double currentScale() const;
  int64_t skippedSteps() const { return skipped_; }

 private:
  torch::Tensor scale_, growth_tracker_;
  double growth_, backoff_;
  int64_t interval_;
  int64_t skipped_ = 0;
};

// The multiply-adds of a Linear layer's forward pass, as FLOPs (2 per multiply-add).
inline double linearFlops(int64_t batch, int64_t in, int64_t out) {
  return 2.0 * static_cast<double>(batch) * static_cast<double>(in) * static_cast<double>(out);
}

std::string fmtBytes(int64_t bytes);

}  // namespace sawtooth::workloads
