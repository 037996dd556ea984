#pragma once
// The workloads' own modules in their recordings (issue 23), as a Python program's are: each
// model's modules named as named_modules() names them below a root named by its class, each with
// the bytes of its own parameters (a shared tensor counted once), and each call of one marked on
// the recording. LibTorch's C++ modules have no forward hooks, so the workloads' model code opens
// a ModuleScope around each submodule's forward (call(), forwardSequential()); backward finds its
// module through autograd's sequence numbers (CaptureSession::enterModule). Parameters, their
// gradients and the optimizer's state are tagged with the module whose parameter they are.
// Include only from workload .cpp files (LibTorch headers are heavy).

#include <torch/torch.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "capture/torch/capture_session.h"

namespace sawtooth::workloads {

class ForeachOptimizer;

class RecordedModules {
 public:
  // `root_name`: the root's name in the recording (by default its class, "Sequential").
  RecordedModules(capture::CaptureSession& session, const torch::nn::Module& root, std::string root_name = {});

  uint32_t idOf(const torch::nn::Module& module) const;  // kNoModule for a module not under the root
  uint32_t ownerOf(const torch::Tensor& parameter) const;
  capture::CaptureSession& session() const { return session_; }

  // Runs f() as one call of `module`.
  template <typename F>
  auto call(const torch::nn::Module& module, F&& f) {
    capture::ModuleScope scope(&session_, idOf(module));
    return f();
  }
  // Sequential::forward, with each child's forward marked inside the root's.
  torch::Tensor forwardSequential(torch::nn::Sequential& net, torch::Tensor x);

  // Tags with their owners: the parameters, their gradients, the optimizer's state.
  void tagParameters() const;
  void tagGradients() const;
  void tagOptimizerState(const ForeachOptimizer& optimizer) const;

 private:
  void tagOwned(const torch::Tensor& t, const torch::Tensor& parameter, Category category) const;

  capture::CaptureSession& session_;
  std::unordered_map<const torch::nn::Module*, uint32_t> ids_;
  std::unordered_map<const c10::TensorImpl*, uint32_t> owners_;  // parameter -> its module
  std::vector<torch::Tensor> parameters_;
};

// The name a module's class has in a recording: "Linear" for torch::nn::LinearImpl.
std::string moduleClassName(const torch::nn::Module& module);

}  // namespace sawtooth::workloads
