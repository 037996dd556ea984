#pragma once
// What the recorder offers: core/recording's workload list, read from `sawtooth-record --list
// --json` (the one source of truth for the workloads, their parameters, defaults and checks), and
// where the recorder is.

#include <QString>

#include "core/recording/workload_list.h"

namespace sawtooth::app {

using WorkloadCatalog = recording::WorkloadList;

// The sawtooth-record next to this executable, or $SAWTOOTH_RECORD; empty when there is none.
QString findRecorder();

}  // namespace sawtooth::app
