#pragma once

#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {

Workload dataParallelWorkload();

}  // namespace sawtooth::workloads
