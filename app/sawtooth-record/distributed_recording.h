#pragma once
// sawtooth-record --ranks N for a distributed workload: serves the rendezvous store, runs one
// rank process per rank (rank_launcher.h), and when every rank succeeded merges their traces
// into the one file asked for, with a run per rank (core/io/trace_merge.h). The rank files stay
// beside it. Returns sawtooth-record's exit code.

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "app/sawtooth-record/progress_json.h"

namespace sawtooth::record {

struct DistributedRequest {
  std::string executable;
  std::string workload;
  bool cuda = false;
  std::vector<std::string> rank_args;  // what every rank runs with, less --out and the rank flags
  std::map<std::string, std::string> parameters;
  std::string out;
  int ranks = 1;
  std::chrono::seconds timeout{3600};
};

int recordDistributed(const DistributedRequest& request, JsonLinesProgress& progress, const std::atomic<bool>& stop);

}  // namespace sawtooth::record
