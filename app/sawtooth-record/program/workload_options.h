#pragma once
// The command line of a built-in workload run (sawtooth-record --workload NAME ...): defined once,
// torch-free, so that sawtooth-record's help shows it without loading LibTorch and the workload
// runner (sawtooth-workloads, LibTorch) parses the same options.

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace sawtooth::record {

struct WorkloadOptions {
  bool list = false, as_json = false, force = false;
  std::string workload, device = "auto", stacks = "none", capture = "all", out, steps;
  std::vector<std::string> sets;
  int64_t window_events = 0, sample_interval = 50;
  int ranks = 1, timeout_s = 3600;
  // Set by the launcher on each rank process (hidden from the help).
  int rank = -1, world_size = 0, store_port = 0;
};

void addWorkloadOptions(CLI::App& app, WorkloadOptions& o);

// The exit codes of both modes, for the help's footer.
extern const char* const kExitCodesHelp;

}  // namespace sawtooth::record
