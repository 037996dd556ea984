#include "experiments/accumulation.h"
#include "experiments/anatomy.h"
#include "experiments/checkpointing.h"
#include "experiments/data_parallel.h"
#include "experiments/precision.h"
#include "experiments/workload.h"

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
