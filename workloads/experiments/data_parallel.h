#pragma once

#include "experiments/workload.h"

namespace sawtooth::workloads {

Workload dataParallelWorkload();

}  // namespace sawtooth::workloads
