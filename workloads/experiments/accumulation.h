#pragma once

#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {

Workload accumulationWorkload();

}  // namespace sawtooth::workloads
