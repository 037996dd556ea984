#pragma once
// CUPTI activity collection: driver-level memory (MEMORY2: every cudaMalloc/cudaFree, including
// memory PyTorch does not own), memory pools (MEMORY_POOL) and kernel intervals
// (CONCURRENT_KERNEL). Timestamps come from the session's clock. Dropped records are counted.
// A flusher thread hands completed buffers over every `flush_interval`, so that what CUPTI saw
// reaches the file as soon as the allocator's own records (a killed recording keeps it too).
// Without a GPU or driver, start() fails with the reason and the capture goes on without it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "capture/writer/bounded_queue.h"
#include "capture/writer/capture_record.h"
#include "capture/writer/queue_policy.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth::capture {

struct CuptiStats {
  uint64_t memory_records = 0;
  uint64_t pool_records = 0;
  uint64_t kernel_records = 0;
  uint64_t dropped = 0;  // records CUPTI itself could not keep (no buffer)
  uint64_t buffers = 0;
};

struct CuptiSinks {
  BoundedQueue<CaptureRecord>* memory_queue = nullptr;
  QueueCounters* memory_counters = nullptr;
  WriterWakeup* wakeup = nullptr;
  const std::atomic<bool>* recording = nullptr;
  // Kernel intervals of one buffer, and the names of kernels seen for the first time (id, name).
  std::function<void(std::vector<KernelInterval>, std::vector<std::pair<uint32_t, std::string>>)> kernels;
};

class CuptiCollector {
 public:
  // One collector per process (CUPTI allows one subscriber).
  static Result<CuptiCollector*> start(CuptiSinks sinks, bool with_kernels,
                                       std::chrono::milliseconds flush_interval = std::chrono::milliseconds(50));
  // Hands over every buffer now, the one being filled too (a window opening at a step needs
  // every driver record made before it); kernels still running then are left out.
  void flushAll();
  // Stops the flusher, hands over every buffer (forced) and disables the activity kinds.
  void stop();
  CuptiStats stats() const;
  std::string version() const { return version_; }

 private:
  CuptiCollector() = default;
  std::string version_;
};

}  // namespace sawtooth::capture
