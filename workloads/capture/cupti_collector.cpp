#include "workloads/capture/cupti_collector.h"

#include <cupti.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace sawtooth::capture {
namespace {

constexpr size_t kBufferSize = 8 << 20;
constexpr size_t kAlignment = 8;

struct State {
  BoundedQueue<CaptureRecord>* queue = nullptr;
  CuptiCollector::KernelSink kernels;
  std::mutex mutex;  // CUPTI may complete buffers on several threads
  std::unordered_map<std::string, uint32_t> kernel_ids;
  std::vector<std::string> kernel_names;
  std::atomic<uint64_t> memory{0}, pools{0}, kernel_count{0}, dropped{0}, buffers{0};
};
State* g_state = nullptr;

uint64_t CUPTIAPI sessionClock() { return static_cast<uint64_t>(clockNs()); }

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferSize));
  *size = *buffer ? kBufferSize : 0;
  *max_records = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  State* s = g_state;
  std::vector<KernelInterval> kernels;
  CUpti_Activity* record = nullptr;
  while (s && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
        s->memory.fetch_add(1);
        if (m->memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) break;  // device memory is the driver series
        CaptureRecord r;
        r.t_ns = static_cast<int64_t>(m->timestamp);
        r.kind = RecordKind::Memory;
        r.source = Source::Driver;
        r.action = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION ? Action::Alloc
                                                                                               : Action::FreeCompleted;
        r.device = static_cast<int16_t>(m->deviceId);
        r.addr = m->address;
        r.size = static_cast<int64_t>(m->bytes);
        r.stream = m->streamId;
        if (!s->queue->tryPush(r)) s->dropped.fetch_add(1);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
        s->pools.fetch_add(1);
        break;
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        s->kernel_count.fetch_add(1);
        KernelInterval ki;
        ki.device = static_cast<int16_t>(k->deviceId);
        ki.stream = k->streamId;
        ki.begin_ns = static_cast<int64_t>(k->start);
        ki.end_ns = static_cast<int64_t>(k->end);
        {
          std::lock_guard<std::mutex> lock(s->mutex);
          const std::string name = k->name ? k->name : "?";
          auto [it, inserted] = s->kernel_ids.try_emplace(name, static_cast<uint32_t>(s->kernel_names.size()));
          if (inserted) s->kernel_names.push_back(name);
          ki.name = it->second;
        }
        kernels.push_back(ki);
        break;
      }
      default:
        break;
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && s) s->dropped.fetch_add(dropped);
  if (s) s->buffers.fetch_add(1);
  if (s && !kernels.empty() && s->kernels) {
    std::vector<std::string> names;
    {
      std::lock_guard<std::mutex> lock(s->mutex);
      names = s->kernel_names;
    }
    s->kernels(std::move(kernels), names);
  }
  std::free(buffer);
}

std::string describe(CUptiResult rc) {
  const char* text = nullptr;
  cuptiGetResultString(rc, &text);
  return text ? text : fmt::format("CUPTI error {}", static_cast<int>(rc));
}

}  // namespace

Result<CuptiCollector*> CuptiCollector::start(BoundedQueue<CaptureRecord>* memory_queue, KernelSink kernels,
                                              bool with_kernels) {
  static CuptiCollector collector;
  uint32_t version = 0;
  if (CUptiResult rc = cuptiGetVersion(&version); rc != CUPTI_SUCCESS) return Error{"CUPTI: " + describe(rc)};
  collector.version_ = std::to_string(version);
  if (!g_state) g_state = new State();  // lives for the process: CUPTI may call back until exit
  g_state->queue = memory_queue;
  g_state->kernels = std::move(kernels);
  if (CUptiResult rc = cuptiActivityRegisterTimestampCallback(sessionClock); rc != CUPTI_SUCCESS)
    return Error{"CUPTI timestamp callback: " + describe(rc)};
  if (CUptiResult rc = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted); rc != CUPTI_SUCCESS)
    return Error{"CUPTI callbacks: " + describe(rc)};
  std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL};
  if (with_kernels) kinds.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  for (CUpti_ActivityKind kind : kinds)
    if (CUptiResult rc = cuptiActivityEnable(kind); rc != CUPTI_SUCCESS)
      return Error{fmt::format("CUPTI cannot trace activity kind {}: {}", static_cast<int>(kind), describe(rc))};
  return &collector;
}

void CuptiCollector::flush(bool forced) { cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0); }

void CuptiCollector::stop() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL})
    cuptiActivityDisable(kind);
}

CuptiStats CuptiCollector::stats() const {
  CuptiStats s;
  if (!g_state) return s;
  s.memory_records = g_state->memory.load();
  s.pool_records = g_state->pools.load();
  s.kernel_records = g_state->kernel_count.load();
  s.dropped = g_state->dropped.load();
  s.buffers = g_state->buffers.load();
  return s;
}

}  // namespace sawtooth::capture
