#include "core/analysis/reduction_staging.h"

#include <algorithm>

namespace sawtooth {
namespace {

int64_t divUp(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t lastPow2(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace

ReductionDevice reductionDeviceOf(std::string_view name) {
  // Multiprocessors and resident threads per multiprocessor, from NVIDIA's specifications; the
  // more specific names first ("H100 PCIe" before "H100").
  struct Known {
    std::string_view key;
    int sms;
    int threads;
  };
  static constexpr Known known[] = {
      {"GH200", 132, 2048},     {"H200", 132, 2048}, {"H100 PCIe", 114, 2048}, {"H100", 132, 2048},
      {"H800", 132, 2048},      {"A100", 108, 2048}, {"A800", 108, 2048},      {"L40S", 142, 1536},
      {"L40", 142, 1536},       {"L4", 58, 1536},    {"A10G", 80, 1536},       {"A10", 72, 1536},
      {"RTX 4090", 128, 1536},  {"RTX 3090", 82, 1536}, {"V100", 80, 2048},
  };
  for (const Known& k : known)
    if (name.find(k.key) != std::string_view::npos) return ReductionDevice{k.sms, k.threads};
  return {};
}

int64_t rowSumStagingBytes(int64_t rows, int64_t outputs, const ReductionDevice& device) {
  if (device.multiprocessors <= 0 || rows <= 0 || outputs <= 0 || outputs % 4 != 0) return 0;
  // Past 32-bit indexing ATen splits the sum into several kernels, each sized on its own: not modelled.
  if (rows > (int64_t{1} << 31) / outputs) return 0;
  // setReduceConfig for a reduction over the slower dimension: block.x over the outputs (by vectors
  // of 4), block.y over the rows, 512 threads at most (128 vectors).
  constexpr int64_t kVec = 4, kMaxThreads = 512 / kVec, kWarp = 32, kAccBytes = 4;
  const int64_t dim0 = outputs / kVec, dim1 = rows;
  const int64_t dim0_pow2 = dim0 < kMaxThreads ? lastPow2(dim0) : kMaxThreads;
  const int64_t dim1_pow2 = dim1 < kMaxThreads ? lastPow2(dim1) : kMaxThreads;
  int64_t block_width = std::min(dim0_pow2, kWarp);
  const int64_t block_height = std::min(dim1_pow2, kMaxThreads / block_width);
  block_width = std::min(dim0_pow2, kMaxThreads / block_height);
  const int64_t threads = block_width * block_height;
  // Lanes take outputs; warps split the rows when each thread keeps 16 values or more.
  int64_t step_input = 1;
  if (divUp(rows, step_input) >= block_height * 16 || divUp(rows, step_input) >= 256) step_input *= block_height;
  else return 0;  // each warp takes outputs of its own: no global reduction
  const int64_t values_per_thread = divUp(rows, step_input);
  const int64_t grid_x = divUp(dim0, block_width);
  const int64_t target_grid = device.multiprocessors * (device.max_threads_per_multiprocessor / threads);
  if (values_per_thread < 256 || grid_x > target_grid) return 0;
  const int64_t ctas = std::max(std::min(divUp(target_grid, grid_x), divUp(values_per_thread, 16)),
                                divUp(values_per_thread, 256));
  if (ctas <= 1) return 0;
  return kAccBytes * outputs * ctas * block_width * kVec;
}

}  // namespace sawtooth
