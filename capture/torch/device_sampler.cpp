#include "capture/torch/device_sampler.h"

#include <cuda_runtime_api.h>

namespace sawtooth::capture {

bool DeviceSampler::sample() {
  size_t free_bytes = 0, total_bytes = 0;
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return false;
  if (current != device_ && cudaSetDevice(device_) != cudaSuccess) return false;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return false;
  CaptureRecord r;
  r.t_ns = clockNs();
  r.kind = RecordKind::Sample;
  r.source = Source::Sample;
  r.action = Action::Sample;
  r.device = static_cast<int16_t>(device_);
  r.size = static_cast<int64_t>(total_bytes - free_bytes);
  r.addr = total_bytes;
  samples_.fetch_add(1);
  return pushOrDrop(*queue_, r, wakeup_, *counters_);
}

void DeviceSampler::start(std::chrono::milliseconds interval) {
  thread_ = std::thread([this, interval] {
    cudaSetDevice(device_);
    auto last = std::chrono::steady_clock::now() - interval;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      const auto now = std::chrono::steady_clock::now();
      const bool due = interval.count() > 0 && now - last >= interval;
      if (requested_.exchange(false, std::memory_order_relaxed) || due) {
        lock.unlock();
        sample();
        lock.lock();
        last = now;
      }
      wake_.wait_for(lock, kPollPeriod, [this] { return stopping_; });
    }
  });
}

void DeviceSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace sawtooth::capture
