#include "core/analysis/memory_plan.h"

#include <algorithm>

#include "core/analysis/measurement_names.h"

namespace sawtooth {
namespace {

// Adam's two moments, each the size of the parameters it steps.
constexpr double kAdamStateTensors = 2;

}  // namespace

MemoryPlan planMemory(const PlanInputs& in) {
  const double element = in.bytes_per_element;
  MemoryPlan p;
  p.parameters = in.parameters;
  p.optimizer_parameters = in.optimizer_parameters;
  p.parameter_bytes = element * static_cast<double>(in.stored_parameters > 0 ? in.stored_parameters : in.parameters);
  p.gradient_bytes = p.parameter_bytes;
  p.optimizer_state_bytes = in.state_per_parameter * element * static_cast<double>(in.optimizer_parameters);
  p.activation_bytes = element * static_cast<double>(in.activation_elements);
  p.input_bytes = element * static_cast<double>(in.input_elements);
  return p;
}

double MemoryPlan::modelStateInP() const {
  // Bytes per parameter: 4 for the weights, 4 for the gradients, 8 for Adam's moments in fp32.
  return parameters > 0 ? modelStateBytes() / static_cast<double>(parameters) : 0;
}

std::vector<Measurement> MemoryPlan::measurements(double measured_peak) const {
  using namespace measure;
  std::vector<Measurement> m = {
      {kParameters, static_cast<double>(parameters), kCount},
      {kPlanParameterBytes, parameter_bytes, kBytes},
      {kPlanGradientBytes, gradient_bytes, kBytes},
      {kPlanOptimizerStateBytes, optimizer_state_bytes, kBytes},
      {kPlanModelStateBytes, modelStateBytes(), kBytes},
      {kPlanActivationBytes, activation_bytes, kBytes},
      {kPlanInputBytes, input_bytes, kBytes},
      {kPlanTotalBytes, totalBytes(), kBytes},
  };
  if (optimizer_parameters != parameters)
    m.insert(m.begin() + 1, Measurement{kOptimizerParameters, static_cast<double>(optimizer_parameters), kCount});
  if (measured_peak > 0 && totalBytes() > 0) m.push_back({kPlanError, measured_peak / totalBytes() - 1.0, kRatio});
  return m;
}

std::optional<MemoryPlan> MemoryPlan::fromRun(const Run& run) {
  using namespace measure;
  const Measurement* params = run.measurement(kPlanParameterBytes);
  const Measurement* grads = run.measurement(kPlanGradientBytes);
  const Measurement* state = run.measurement(kPlanOptimizerStateBytes);
  if (!params || !grads || !state || params->value <= 0) return std::nullopt;
  auto value = [&](const char* name) {
    const Measurement* m = run.measurement(name);
    return m ? m->value : 0.0;
  };
  MemoryPlan p;
  p.parameter_bytes = params->value;
  p.gradient_bytes = grads->value;
  p.optimizer_state_bytes = state->value;
  p.activation_bytes = value(kPlanActivationBytes);
  p.input_bytes = value(kPlanInputBytes);
  // A run that did not record its count of parameters: fp32, 4 bytes each.
  p.parameters = run.measurement(kParameters) ? static_cast<int64_t>(value(kParameters))
                                               : static_cast<int64_t>(p.parameter_bytes / 4);
  p.optimizer_parameters = run.measurement(kOptimizerParameters) ? static_cast<int64_t>(value(kOptimizerParameters))
                                                                  : p.parameters;
  return p;
}

double replicatedModelStateBytes(double parameter_bytes) { return (2 + kAdamStateTensors) * parameter_bytes; }

double shardedModelStateBytes(double parameter_bytes, int world_size) {
  return 2 * parameter_bytes + kAdamStateTensors * parameter_bytes / std::max(1, world_size);
}

}  // namespace sawtooth
