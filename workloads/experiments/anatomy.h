#pragma once

#include "workloads/experiments/workload.h"

namespace sawtooth::workloads {

Workload anatomyWorkload();

}  // namespace sawtooth::workloads
