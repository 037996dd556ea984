#pragma once

#include "experiments/workload.h"

namespace sawtooth::workloads {

Workload checkpointingWorkload();

}  // namespace sawtooth::workloads
