#pragma once
// The buffer PyTorch's CUDA reductions stage partial sums in, as a ladder rung must size it for a
// smaller batch. A sum over the rows of a [rows, outputs] tensor — a linear layer's bias gradient,
// grad_output.sum(0) — that is long enough is split across thread blocks, which write their partial
// results to a buffer taken from the caching allocator for the kernel's duration (ATen's
// Reduce.cuh: setReduceConfig and ReduceConfig::global_memory_size). In a recording it is a
// backward temporary of a size forward never made, right after the bias's gradient; its size
// follows the rows up to a cap set by the device's multiprocessors: on an H100 or H200, 132 MiB for
// 4096 outputs from 8192 rows on, 128 MiB at 4096 rows, 64 MiB at 2048, none below 1024.

#include <cstdint>
#include <string_view>

namespace sawtooth {

// What the reduction's launch configuration depends on.
struct ReductionDevice {
  int multiprocessors = 0;             // 0: unknown
  int max_threads_per_multiprocessor = 2048;
};

// By the device's name as CUDA gives it ("NVIDIA H100 80GB HBM3"); multiprocessors 0 where unknown.
ReductionDevice reductionDeviceOf(std::string_view device_name);

// The staging buffer's bytes (the request, before the allocator rounds it) of a sum over `rows`
// rows of a row-major [rows, outputs] tensor, accumulated in 4 bytes (fp32, bf16 and fp16 inputs
// alike), with its output vectorised by 4 (outputs a multiple of 4, as a layer's are): 0 when the
// sum needs no buffer or the device is unknown.
int64_t rowSumStagingBytes(int64_t rows, int64_t outputs, const ReductionDevice& device);

}  // namespace sawtooth
