#pragma once
// The built-in workloads: each one's spec (core/recording: what it is, its parameters with GPU
// (seed) and CPU defaults, their one check) and the function that runs it inside a capture
// session. No LibTorch types here: the recorder's main and the tests include this header cheaply.

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/recording/workload_spec.h"

namespace sawtooth::capture {
class CaptureSession;
}

namespace sawtooth::workloads {

using recording::Parameters;
using recording::ParameterSpec;
using recording::resolveParameters;
using recording::WorkloadSpec;

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void report(const std::string& stage, const std::string& run, int64_t step, int64_t steps, double fraction,
                      const std::string& message) = 0;
};

// Thrown between steps when SIGINT/SIGTERM asked the recorder to stop.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

// Where this process sits in a distributed run: its rank, the world size, and the loopback port
// of the launcher's c10d TCPStore (the rendezvous). Rank 0 of 1 with no port outside one.
struct DistributedContext {
  int rank = 0;
  int world_size = 1;
  int store_port = 0;
};

struct WorkloadContext {
  capture::CaptureSession& session;
  const Parameters& params;
  bool cuda = false;
  int device = 0;
  ProgressSink& progress;
  const std::atomic<bool>& stop_requested;
  DistributedContext distributed{};

  void checkStop() const {
    if (stop_requested.load()) throw Interrupted();
  }
};

struct Workload {
  WorkloadSpec spec;
  void (*run)(WorkloadContext& context);
};

const std::vector<Workload>& allWorkloads();
const Workload* findWorkload(std::string_view name);

}  // namespace sawtooth::workloads
