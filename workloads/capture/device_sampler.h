#pragma once
// Device memory in use as the driver reports it (cudaMemGetInfo: total − free, the CUDA context
// and every other process' memory included), sampled at phase boundaries and on a low-rate timer.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "capture/bounded_queue.h"
#include "capture/capture_record.h"

namespace sawtooth::capture {

class DeviceSampler {
 public:
  DeviceSampler(BoundedQueue<CaptureRecord>* queue, int device) : queue_(queue), device_(device) {}
  ~DeviceSampler() { stop(); }

  void start(std::chrono::milliseconds interval);
  void stop();
  // One sample now, on the calling thread. False when the driver could not be asked.
  bool sample();
  uint64_t samples() const { return samples_.load(); }

 private:
  BoundedQueue<CaptureRecord>* queue_;
  int device_;
  std::atomic<uint64_t> samples_{0};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace sawtooth::capture
