#pragma once
// Where the benchmarks find their inputs, and the process measurements they report.
// Inputs are written by bench/core/gen_snapshot.py into $SAWTOOTH_BENCH_DATA (default build/bench-data,
// relative to the working directory); bench/core/run_cpu_benchmarks.sh does it all.

#include <cstddef>
#include <memory>
#include <string>

#include "core/model/trace.h"

namespace sawtooth::bench {

std::string dataDir();
// dataDir()/name; aborts the benchmark run with a hint when the file is missing.
std::string requireData(const std::string& name);
bool exists(const std::string& path);

// Resident set size of this process, after returning freed heap pages to the kernel.
size_t residentBytesAfterTrim();

// Drops the kernel's page cache (root only). Returns false when not permitted.
bool dropPageCache();

// The 10 M-event trace for the LOD and cold-open benchmarks, loaded once per process:
// snapshot_10m.pickle imported, and trace_10m.sawtooth written from it on first use.
const Trace& trace10m();
std::string native10mPath();

}  // namespace sawtooth::bench
