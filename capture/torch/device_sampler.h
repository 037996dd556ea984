#pragma once
// Device memory in use as the driver reports it (cudaMemGetInfo: total − free, the CUDA context
// and every other process' memory included), sampled at phase boundaries and on a low-rate timer.
// The samples are taken on the sampler's own thread: a phase boundary only raises a flag (an
// atomic store), so the workload thread never waits for the driver; the sample follows within
// the polling period and is stamped when it is taken.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "capture/writer/bounded_queue.h"
#include "capture/writer/capture_record.h"
#include "capture/writer/queue_policy.h"

namespace sawtooth::capture {

class DeviceSampler {
 public:
  DeviceSampler(BoundedQueue<CaptureRecord>* queue, QueueCounters* counters, WriterWakeup* wakeup, int device)
      : queue_(queue), counters_(counters), wakeup_(wakeup), device_(device) {}
  ~DeviceSampler() { stop(); }

  // Samples at phase boundaries, and every `interval` (0: at phase boundaries only).
  void start(std::chrono::milliseconds interval);
  void stop();
  // Asks for a sample as soon as the sampler thread next looks (within kPollPeriod).
  void requestSample() { requested_.store(true, std::memory_order_relaxed); }
  static constexpr std::chrono::microseconds kPollPeriod{200};
  uint64_t samples() const { return samples_.load(); }

 private:
  BoundedQueue<CaptureRecord>* queue_;
  QueueCounters* counters_;
  WriterWakeup* wakeup_;
  int device_;
  bool sample();
  std::atomic<uint64_t> samples_{0};
  std::atomic<bool> requested_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace sawtooth::capture
