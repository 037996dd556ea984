#pragma once
// A rank's process group, LibTorch's own c10d: the rank connects to the launcher's TCPStore on
// loopback and builds ProcessGroupGloo (CPU tensors) or ProcessGroupNCCL (CUDA tensors). Every
// collective here waits until it is done, so the memory it uses lies inside the phase that
// issued it. Include only from workload .cpp files (LibTorch headers are heavy).

#include <torch/torch.h>

#include <torch/csrc/distributed/c10d/Backend.hpp>

#include <chrono>
#include <string>

#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {

class RankGroup {
 public:
  // Throws std::runtime_error naming the rank and what to do when the store cannot be reached
  // or this build lacks the backend.
  RankGroup(const DistributedContext& distributed, bool cuda, std::chrono::milliseconds timeout);
  ~RankGroup();
  RankGroup(const RankGroup&) = delete;
  RankGroup& operator=(const RankGroup&) = delete;

  const std::string& backendName() const { return backend_name_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  void allreduceSum(torch::Tensor& tensor);
  // `tensor` must be contiguous (a slice of a flat buffer is).
  void broadcast(torch::Tensor& tensor, int root);

 private:
  c10::intrusive_ptr<c10d::Backend> backend_;
  std::string backend_name_;
  int rank_ = 0, size_ = 1;
};

// Which backends this build can create (the Gloo and NCCL headers are found at configure time).
bool glooBuiltIn();
bool ncclBuiltIn();

}  // namespace sawtooth::workloads
