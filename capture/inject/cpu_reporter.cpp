#include "capture/inject/cpu_reporter.h"

#include <atomic>
#include <memory>

#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/csrc/profiler/orchestration/observer.h>

#include "capture/inject/torch_tracker.h"

namespace sawtooth::tracker {
namespace {

namespace prof = torch::profiler::impl;

class CpuReporter final : public prof::ProfilerStateBase {
 public:
  // Disabled, with memory: profilerEnabled() and the profiler's own checks of its state read
  // "off", memoryProfilingEnabled() reads "on" (ProfilerStateBase answers it from the config).
  CpuReporter() : prof::ProfilerStateBase(prof::ProfilerConfig(prof::ProfilerState::Disabled, false, true)) {}

  void reportMemoryUsage(void* ptr, int64_t alloc_size, size_t, size_t, c10::Device device) override {
    if (muted.load(std::memory_order_relaxed) || !device.is_cpu() || alloc_size == 0) return;
    onCpuMemory(ptr, alloc_size);
  }

  bool memoryProfilingEnabled() const override { return !muted.load(std::memory_order_relaxed); }

  prof::ActiveProfilerType profilerType() override { return prof::ActiveProfilerType::NONE; }

  std::atomic<bool> muted{false};
};

// One reporter, never destroyed: threads that inherited it may report until the process ends.
const std::shared_ptr<CpuReporter>& reporter() {
  static auto* r = new std::shared_ptr<CpuReporter>(std::make_shared<CpuReporter>());
  return *r;
}

bool oursOnTop() {
  try {
    return c10::ThreadLocalDebugInfo::_peek(c10::DebugInfoKind::PROFILER_STATE).get() == reporter().get();
  } catch (const std::exception&) {  // the last thing pushed is of another kind, or nothing is
    return false;
  }
}

}  // namespace

bool attachCpu(std::string& error) {
  const auto& r = reporter();
  auto* current = c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE);
  if (current == r.get()) {
    r->muted.store(false);
    return true;
  }
  if (current != nullptr) {
    error = "a profiler is already running on this thread";
    return false;
  }
  c10::ThreadLocalDebugInfo::_push(c10::DebugInfoKind::PROFILER_STATE, r);
  r->muted.store(false);
  return true;
}

void detachCpu() {
  if (oursOnTop()) {
    c10::ThreadLocalDebugInfo::_pop(c10::DebugInfoKind::PROFILER_STATE);
    return;
  }
  if (c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE) == reporter().get())
    reporter()->muted.store(true);
}

}  // namespace sawtooth::tracker
