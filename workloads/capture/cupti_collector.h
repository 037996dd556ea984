#pragma once
// CUPTI activity collection: driver-level memory (MEMORY2: every cudaMalloc/cudaFree, including
// memory PyTorch does not own), memory pools (MEMORY_POOL) and kernel intervals
// (CONCURRENT_KERNEL). Timestamps come from the session's clock. Dropped records are counted.
// Without a GPU or driver, start() fails with the reason and the capture goes on without it.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "workloads/capture/bounded_queue.h"
#include "workloads/capture/capture_record.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth::capture {

struct CuptiStats {
  uint64_t memory_records = 0;
  uint64_t pool_records = 0;
  uint64_t kernel_records = 0;
  uint64_t dropped = 0;
  uint64_t buffers = 0;
};

class CuptiCollector {
 public:
  using KernelSink = std::function<void(std::vector<KernelInterval>, const std::vector<std::string>& names)>;

  // One collector per process (CUPTI allows one subscriber).
  static Result<CuptiCollector*> start(BoundedQueue<CaptureRecord>* memory_queue, KernelSink kernels, bool with_kernels);
  void flush(bool forced);
  void stop();
  CuptiStats stats() const;
  std::string version() const { return version_; }

 private:
  CuptiCollector() = default;
  std::string version_;
};

}  // namespace sawtooth::capture
