#include "capture/torch/allocator_sources.h"
#include "capture/torch/trace_entry_action.h"

#include <mutex>

#include <c10/core/Allocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/cuda/memory_snapshot.h>
#include <torch/csrc/profiler/combined_traceback.h>

namespace sawtooth::capture {
namespace {

using c10::CachingDeviceAllocator::TraceEntry;

std::atomic<SourceSink*> g_tracker_sink{nullptr};
SourceSink g_tracker_sink_storage;
std::atomic<bool> g_tracker_attached{false};
std::mutex g_oom_mutex;
OomState g_oom;

// The autograd node this thread runs, if any: a backward allocation's link to the forward that
// made the node (the writer finds the module from it). A thread-local read and a reference count.
void linkToNode(CaptureRecord& r) {
  if (const auto node = torch::autograd::get_current_node()) {
    r.node_known = true;
    r.node_thread = static_cast<uint32_t>(node->thread_id());
    r.node_seq = node->sequence_nr();
  }
}

void push(const SourceSink& sink, CaptureRecord&& r) {
  if (sink.recording && !sink.recording->load(std::memory_order_relaxed)) return;
  pushOrDrop(*sink.queue, r, sink.wakeup, *sink.queue_counters);
}


// Runs under the per-device allocator lock: no allocation, no locks, no PyTorch calls but the
// thread-local read of the autograd node running.
void onTraceEntry(const TraceEntry& te) {
  SourceSink* sink = g_tracker_sink.load(std::memory_order_acquire);
  if (!sink) return;
  const auto action = actionOf(te.action_);
  if (!action) return;
  CaptureRecord r;
  r.t_ns = clockNs();
  r.kind = RecordKind::Memory;
  r.source = Source::Allocator;
  r.action = *action;
  r.device = static_cast<int16_t>(te.device_);
  r.addr = te.addr_;
  r.size = static_cast<int64_t>(te.size_);
  r.stream = reinterpret_cast<uint64_t>(te.stream_);
  if (te.context_) r.context = te.context_;
  if (r.action == Action::Alloc) linkToNode(r);
  if (sink->counters) sink->counters->add(r.device, allocatedSign(r.action) * r.size);
  push(*sink, std::move(r));
}

class Reporter final : public c10::MemoryReportingInfoBase {
 public:
  explicit Reporter(SourceSink sink) : sink_(sink) {}
  bool memoryProfilingEnabled() const override { return true; }

  void reportMemoryUsage(void* ptr, int64_t alloc_size, size_t, size_t, c10::Device device) override {
    CaptureRecord r;
    r.t_ns = clockNs();
    r.kind = RecordKind::Memory;
    r.addr = reinterpret_cast<uint64_t>(ptr);
    r.size = alloc_size < 0 ? -alloc_size : alloc_size;
    r.action = alloc_size >= 0 ? Action::Alloc : Action::FreeCompleted;
    if (alloc_size >= 0) linkToNode(r);
    if (device.is_cpu()) {
      // The CPU allocator has no trace of its own: these reports are its series.
      r.device = -1;
      r.source = Source::Allocator;
      if (sink_.counters) sink_.counters->add(-1, alloc_size);
    } else {
      r.device = static_cast<int16_t>(device.index());
      r.source = Source::Host;
    }
    push(sink_, std::move(r));
  }

  void reportOutOfMemory(int64_t alloc_size, size_t, size_t, c10::Device device) override {
    CaptureRecord r;
    r.t_ns = clockNs();
    r.kind = RecordKind::Memory;
    r.action = Action::Oom;
    r.size = alloc_size;
    r.device = device.is_cpu() ? int16_t{-1} : static_cast<int16_t>(device.index());
    r.source = device.is_cpu() ? Source::Allocator : Source::Host;
    push(sink_, std::move(r));
  }

 private:
  SourceSink sink_;
};

}  // namespace

void startAllocatorTracker(SourceSink sink, StackMode stacks) {
  namespace alloc = c10::cuda::CUDACachingAllocator;
  if (!g_tracker_attached.exchange(true)) {
    alloc::attachAllocatorTraceTracker(onTraceEntry);
    alloc::attachOutOfMemoryObserver([](int64_t device, size_t requested, size_t limit, size_t free_bytes) {
      // The allocator's lock is free here: its stats are those of the failure.
      const auto stats = alloc::getDeviceStats(static_cast<c10::DeviceIndex>(device));
      std::lock_guard<std::mutex> lock(g_oom_mutex);
      g_oom = OomState{true, device, static_cast<int64_t>(requested), static_cast<int64_t>(limit),
                       static_cast<int64_t>(free_bytes), stats.allocated_bytes[0].current};
    });
  }
  g_tracker_sink_storage = sink;
  g_tracker_sink.store(&g_tracker_sink_storage, std::memory_order_release);
  if (stacks == StackMode::Cpp) {
    // PyTorch's own recorder: C++ frames at every alloc and free, kept for the snapshot too.
    torch::cuda::_record_memory_history("all", "all", "all", 1'000'000);
  } else {
    // The tracker fires only while history is on; one entry and no stacks keep it cheap.
    alloc::recordHistory(true, nullptr, 1, alloc::RecordContext::NEVER, false, {});
  }
}

void stopAllocatorTracker() {
  g_tracker_sink.store(nullptr, std::memory_order_release);
  c10::cuda::CUDACachingAllocator::recordHistory(false, nullptr, 0, c10::cuda::CUDACachingAllocator::RecordContext::NEVER,
                                                 false, {});
}

OomState lastOutOfMemory() {
  std::lock_guard<std::mutex> lock(g_oom_mutex);
  return g_oom;
}

std::vector<std::vector<Frame>> symbolizeStacks(const std::vector<std::shared_ptr<void>>& contexts) {
  std::vector<torch::CapturedTraceback*> tracebacks;
  std::vector<size_t> which;  // position in `contexts` of each traceback
  for (size_t i = 0; i < contexts.size(); ++i) {
    auto* gathered = static_cast<c10::GatheredContext*>(contexts[i].get());
    if (auto* tb = dynamic_cast<torch::CapturedTraceback*>(gathered)) {
      tracebacks.push_back(tb);
      which.push_back(i);
    }
  }
  std::vector<std::vector<Frame>> out(contexts.size());
  if (tracebacks.empty()) return out;
  const torch::SymbolizedTracebacks s = torch::symbolize(tracebacks);
  for (size_t k = 0; k < s.tracebacks.size() && k < which.size(); ++k)
    for (uint64_t f : s.tracebacks[k]) {
      const auto& fr = s.all_frames.at(f);
      out[which[k]].push_back(Frame{fr.funcname, fr.filename, static_cast<int64_t>(fr.lineno)});
    }
  return out;
}

std::string allocatorSnapshotPickle() { return torch::cuda::_memory_snapshot_pickled(); }

std::shared_ptr<void> installMemoryReporter(SourceSink sink) {
  auto guard = std::make_shared<c10::DebugInfoGuard>(c10::DebugInfoKind::PROFILER_STATE, std::make_shared<Reporter>(sink));
  return std::static_pointer_cast<void>(guard);
}

}  // namespace sawtooth::capture
