#pragma once

#include "experiments/workload.h"

namespace sawtooth::workloads {

Workload precisionWorkload();

}  // namespace sawtooth::workloads
