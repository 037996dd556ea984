#include "workloads/experiments/accumulation.h"
#include "workloads/experiments/anatomy.h"
#include "workloads/experiments/checkpointing.h"
#include "workloads/experiments/data_parallel.h"
#include "workloads/experiments/precision.h"
#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {

const std::vector<Workload>& allWorkloads() {
  static const std::vector<Workload> all = {anatomyWorkload(), precisionWorkload(), checkpointingWorkload(),
                                            accumulationWorkload(), dataParallelWorkload()};
  return all;
}

const Workload* findWorkload(std::string_view name) {
  for (const auto& w : allWorkloads())
    if (w.spec.name == name) return &w;
  return nullptr;
}

}  // namespace sawtooth::workloads
