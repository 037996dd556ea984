#pragma once

#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {

Workload precisionWorkload();

}  // namespace sawtooth::workloads
