#pragma once

#include "experiments/workload.h"

namespace sawtooth::workloads {

Workload accumulationWorkload();

}  // namespace sawtooth::workloads
