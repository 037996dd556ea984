#pragma once
// The recorder's workloads as data, shared by sawtooth-record (which runs them) and the app (which
// offers them): each workload's parameters with their GPU (seed) and CPU defaults, the one check
// of a parameter's value, and the device and rank rules. Torch-free, Qt-free.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/util/result.h"

namespace sawtooth::recording {

// ParameterSpec::type
inline constexpr std::string_view kIntType = "int";
inline constexpr std::string_view kFloatType = "float";
inline constexpr std::string_view kChoiceType = "choice";

struct ParameterSpec {
  std::string name;
  std::string type;  // kIntType, kFloatType or kChoiceType
  std::string description;
  std::string gpu_default;
  std::string cpu_default;
  std::vector<std::string> choices;
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();

  const std::string& defaultFor(bool cuda) const { return cuda ? gpu_default : cpu_default; }
};

struct WorkloadSpec {
  std::string name;
  std::string title;
  std::string description;
  std::vector<ParameterSpec> parameters;
  // Runs as N processes, one per rank (sawtooth-record --ranks N starts them and merges their
  // traces); the others run in one process.
  bool distributed = false;

  const ParameterSpec* parameter(std::string_view parameter_name) const;
};

// Why `value` is not acceptable ("not a whole number", "must be between 1 and 256", "choose one of
// adam, adamw, sgd"), without the parameter's name: the recorder prefixes "name=value: ", the app
// shows it beside the field. The value is taken as it is (no trimming).
Status checkParameter(const ParameterSpec& spec, std::string_view value);

// Resolved values (every one checked); integer() and real() throw std::invalid_argument otherwise.
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

// Defaults for the device, then the overrides; every value checked with checkParameter.
Result<Parameters> resolveParameters(const WorkloadSpec& spec, bool cuda,
                                     const std::vector<std::pair<std::string, std::string>>& overrides);

// --device: "auto" (a GPU when there is one), "cuda" or "cpu". Whether the run uses CUDA, or why
// the choice cannot run here.
inline constexpr std::string_view kDeviceChoices[] = {"auto", "cuda", "cpu"};
Result<bool> resolveDevice(std::string_view device, bool cuda_available);

// --ranks: one process per rank, at most kMaxRanks, one GPU each on CUDA; only distributed
// workloads take more than one.
inline constexpr int kMaxRanks = 64;
Status checkRanks(const WorkloadSpec& spec, int ranks, bool cuda, int cuda_devices);
// The most ranks the device can run (kMaxRanks on the CPU, the GPU count on CUDA).
int maxRanks(bool cuda, int cuda_devices);

}  // namespace sawtooth::recording
