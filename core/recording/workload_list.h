#pragma once
// The document `sawtooth-record --list --json` prints and the app reads: the workloads with their
// parameters, whether CUDA is available and how many GPUs, and the environment (library versions,
// the GPU's name and memory). Written and parsed here, so both sides speak one versioned format.
//
//   {"version": 1, "workloads": [{"name", "title", "description", "distributed",
//     "parameters": [{"name", "type", "description", "default_gpu", "default_cpu", "choices"?, "min"?, "max"?}]}],
//    "cuda_available": bool, "cuda_devices": int, "environment": {"key": "value", ...}}

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/recording/workload_spec.h"
#include "core/util/result.h"

namespace sawtooth::recording {

inline constexpr int kWorkloadListVersion = 1;
// A list larger than this is not the recorder's (it is a few kilobytes).
inline constexpr size_t kMaxWorkloadListBytes = 1 << 20;

struct WorkloadList {
  std::vector<WorkloadSpec> workloads;
  bool cuda_available = false;
  int cuda_devices = 0;
  std::map<std::string, std::string> environment;  // tool, torch, CUDA runtime/driver, device name and memory

  const WorkloadSpec* find(std::string_view name) const;
  // "NVIDIA H200, 150.1 GB", or empty without a GPU.
  std::string deviceDescription() const;
};

std::string toJson(const WorkloadList& list);
// Refuses anything that is not a list of this version (or older) with a message saying what is wrong.
Result<WorkloadList> parseWorkloadList(std::string_view json);

}  // namespace sawtooth::recording
