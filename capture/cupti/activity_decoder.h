#pragma once
// CUPTI's activity records, decoded once for both users: the workloads' in-process collector
// (capture/torch/cupti_collector.cpp) and the library injected into recorded programs
// (capture/inject/cupti_injection.cpp). Header-only: it needs cupti.h's record layouts, not the
// library (the injected one loads CUPTI at run time and passes its own GetNextRecord).

#include <cstddef>
#include <cstdint>

#include <cupti.h>

namespace sawtooth::cupti {

// The driver handing out (alloc) or taking back device memory (CUPTI_ACTIVITY_KIND_MEMORY2).
struct DriverMemory {
  int64_t t_ns = 0;
  uint64_t addr = 0;
  int64_t bytes = 0;
  uint32_t stream = 0;
  int16_t device = 0;
  bool alloc = false;
};

// A kernel that ran (CONCURRENT_KERNEL); a forced flush hands over kernels still running, which
// are counted but not reported.
struct KernelSpan {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  const char* name = nullptr;  // CUPTI's, valid during the visit only
  uint32_t stream = 0;
  int16_t device = 0;
};

// One end of an NVTX range (MARKER); instantaneous markers are not ranges and are skipped.
struct MarkerEdge {
  int64_t t_ns = 0;
  uint64_t id = 0;
  const char* name = nullptr;  // on the start only
  bool start = false;
};

struct ActivityCounts {
  uint64_t memory = 0, pools = 0, kernels = 0, markers = 0;
};

using GetNextRecord = CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**);

// Walks one completed buffer. The visitor has onMemory(const DriverMemory&),
// onKernel(const KernelSpan&) and onMarker(const MarkerEdge&); memory of other kinds than device
// memory (host, managed...) is counted and not reported: the driver series is device memory.
template <typename Visitor>
void decodeActivityBuffer(GetNextRecord next, uint8_t* buffer, size_t valid, Visitor& visitor, ActivityCounts& counts) {
  CUpti_Activity* record = nullptr;
  while (next(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
        ++counts.memory;
        if (m->memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) break;
        visitor.onMemory(DriverMemory{static_cast<int64_t>(m->timestamp), m->address, static_cast<int64_t>(m->bytes),
                                      m->streamId, static_cast<int16_t>(m->deviceId),
                                      m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
        ++counts.pools;
        break;
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        ++counts.kernels;
        if (k->start == 0 || k->end < k->start) break;
        visitor.onKernel(KernelSpan{static_cast<int64_t>(k->start), static_cast<int64_t>(k->end),
                                    k->name ? k->name : "?", k->streamId, static_cast<int16_t>(k->deviceId)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
        const bool start = m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START;
        const bool end = m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END;
        if (!start && !end) break;
        ++counts.markers;
        visitor.onMarker(MarkerEdge{static_cast<int64_t>(m->timestamp), m->id,
                                    start ? (m->name ? m->name : "nvtx range") : nullptr, start});
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace sawtooth::cupti
