#pragma once
// The two in-process allocation sources (LibTorch):
//   the CUDA caching allocator's trace tracker — every alloc / free / segment / oom, fired only
//   while history recording is on (measured on the H200), called under the allocator's lock;
//   c10's memory reporting (MemoryReportingInfoBase) — the CPU allocator, and CUDA as a
//   cross-check, thread-local to the workload thread and autograd's engine threads.
// Both callbacks only stamp the clock, bump atomic counters and push into a preallocated queue.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/model/stack_table.h"

#include "capture/writer/bounded_queue.h"
#include "capture/writer/capture_record.h"
#include "capture/writer/live_counters.h"
#include "capture/writer/queue_policy.h"

namespace sawtooth::capture {

enum class StackMode { None, Cpp };

struct SourceSink {
  BoundedQueue<CaptureRecord>* queue = nullptr;
  LiveCounters* counters = nullptr;   // kept up to date even when records are not wanted
  QueueCounters* queue_counters = nullptr;
  WriterWakeup* wakeup = nullptr;
  const std::atomic<bool>* recording = nullptr;  // false: count bytes, push nothing (after step B, a failed write)
};

// Attaches the tracker (once per process: there is no detach) and turns history recording on.
// With StackMode::Cpp the allocator also captures C++ stacks, carried in each record's context.
void startAllocatorTracker(SourceSink sink, StackMode stacks);
void stopAllocatorTracker();
// What the allocator reported when it last ran out of memory (its OOM observer runs after the
// allocator's lock is released, at the moment of the failure). PyTorch hands the observer the
// request, the memory it may use (the per-process fraction's allowance when one is set, else the
// device's total) and the device's free memory; the bytes allocated then are read from its stats.
struct OomState {
  bool seen = false;
  int64_t device = 0;
  int64_t requested = 0;
  int64_t limit = 0;
  int64_t device_free = 0;
  int64_t allocated = 0;
};
OomState lastOutOfMemory();

// Frames (innermost first) of the C++ stacks the allocator captured, one list per context.
std::vector<std::vector<Frame>> symbolizeStacks(const std::vector<std::shared_ptr<void>>& contexts);
// The PyTorch snapshot pickle of what the allocator recorded (stacks mode only).
std::string allocatorSnapshotPickle();

// Installs the reporter on the calling thread until the returned guard is destroyed. CPU reports
// are the CPU allocator's series; CUDA reports are kept as a cross-check (source host).
std::shared_ptr<void> installMemoryReporter(SourceSink sink);

}  // namespace sawtooth::capture
