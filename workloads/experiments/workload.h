#pragma once
// The built-in workloads: what each is, its parameters with GPU (seed) and CPU defaults, and the
// function that runs it inside a capture session. No LibTorch types here: the recorder's main
// and the tests include this header cheaply.

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/result.h"

namespace sawtooth::capture {
class CaptureSession;
}

namespace sawtooth::workloads {

struct ParameterSpec {
  std::string name;
  std::string type;  // "int", "float" or "choice"
  std::string description;
  std::string gpu_default;
  std::string cpu_default;
  std::vector<std::string> choices;
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
};

struct WorkloadSpec {
  std::string name;
  std::string title;
  std::string description;
  std::vector<ParameterSpec> parameters;
  // Runs as N processes, one per rank (sawtooth-record --ranks N starts them and merges their
  // traces); the others run in one process.
  bool distributed = false;
};

class Parameters {
 public:
  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  const std::string& text(const std::string& name) const;
  const std::map<std::string, std::string>& all() const { return values_; }
  std::vector<std::pair<std::string, std::string>> list() const { return {values_.begin(), values_.end()}; }
  void set(const std::string& name, std::string value) { values_[name] = std::move(value); }

 private:
  std::map<std::string, std::string> values_;
};

// Defaults for the device, then the overrides; every value checked against its spec.
Result<Parameters> resolveParameters(const WorkloadSpec& spec, bool cuda,
                                     const std::vector<std::pair<std::string, std::string>>& overrides);

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
