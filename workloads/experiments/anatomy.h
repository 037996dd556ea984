#pragma once

#include "experiments/workload.h"

namespace sawtooth::workloads {

Workload anatomyWorkload();

}  // namespace sawtooth::workloads
