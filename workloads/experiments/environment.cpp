#include "workloads/experiments/environment.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace sawtooth::workloads {

bool cudaAvailable() { return torch::cuda::is_available(); }
int cudaDeviceCount() { return static_cast<int>(torch::cuda::device_count()); }

std::map<std::string, std::string> environmentInfo(bool cuda, int device) {
  std::map<std::string, std::string> info;
  info["tool_version"] = SAWTOOTH_VERSION;
  info["torch_version"] = TORCH_VERSION;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    info["cuda_runtime_version"] = fmt::format("{}.{}", runtime / 1000, (runtime % 1000) / 10);
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
    info["cuda_driver_version"] = fmt::format("{}.{}", driver / 1000, (driver % 1000) / 10);
  info["device_kind"] = cuda ? "cuda" : "cpu";
  if (cuda) {
    const cudaDeviceProp* prop = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(device));
    info["device_name"] = prop->name;
    info["device_total_bytes"] = std::to_string(prop->totalGlobalMem);
    info["device_compute_capability"] = fmt::format("{}.{}", prop->major, prop->minor);
    info["device_index"] = std::to_string(device);
  }
  return info;
}

std::map<std::string, std::string> allocatorState(int device) {
  std::map<std::string, std::string> s;
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  s["allocated_bytes"] = std::to_string(stats.allocated_bytes[0].current);
  s["reserved_bytes"] = std::to_string(stats.reserved_bytes[0].current);
  s["peak_allocated_bytes"] = std::to_string(stats.allocated_bytes[0].peak);
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) {
    s["device_free_bytes"] = std::to_string(free_bytes);
    s["device_total_bytes"] = std::to_string(total);
  }
  return s;
}

bool isOutOfMemory(const std::exception& e) { return dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr; }

int leaveACoreToTheCapture(bool cuda) {
  if (cuda) return at::get_num_threads();
  if (const char* omp = std::getenv("OMP_NUM_THREADS"); omp && *omp) return at::get_num_threads();
  cpu_set_t usable;
  CPU_ZERO(&usable);
  const int cores = sched_getaffinity(0, sizeof usable, &usable) == 0 ? CPU_COUNT(&usable) : at::get_num_threads();
  at::set_num_threads(std::max(1, cores - 1));
  return at::get_num_threads();
}

}  // namespace sawtooth::workloads
