#pragma once

#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {

Workload checkpointingWorkload();

}  // namespace sawtooth::workloads
