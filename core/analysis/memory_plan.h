#pragma once
// The analytic plan of a training step's memory, defined once: the workloads write it with their
// runs, and the app draws it. P is the number of parameters; in fp32 each takes 4 bytes, so
//   parameters 4P + gradients 4P + Adam's two moments 8P = 16P of model state,
// plus the activations kept for backward and the input. A data-parallel rank that keeps Adam's
// state only for its 1/N share of the parameters (ZeRO-1) holds 4P + 4P + 8P/N.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/model/trace.h"

namespace sawtooth {

struct PlanInputs {
  int64_t parameters = 0;            // P
  int64_t stored_parameters = 0;     // elements stored for them (P, or a flat buffer padded for N ranks); 0: P
  int64_t optimizer_parameters = 0;  // the elements this process steps (all, or its 1/N share)
  double state_per_parameter = 2;    // optimizer state in parameter-sized tensors (Adam 2, SGD 0 or 1)
  int64_t activation_elements = 0;   // kept for backward
  int64_t input_elements = 0;
  int bytes_per_element = 4;         // fp32
};

struct MemoryPlan {
  int64_t parameters = 0;
  int64_t optimizer_parameters = 0;
  double parameter_bytes = 0;
  double gradient_bytes = 0;
  double optimizer_state_bytes = 0;
  double activation_bytes = 0;
  double input_bytes = 0;

  double modelStateBytes() const { return parameter_bytes + gradient_bytes + optimizer_state_bytes; }
  double totalBytes() const { return modelStateBytes() + activation_bytes + input_bytes; }
  // The model state in units of P (16 for Adam in fp32; 4 + 4 + 8/N sharded).
  double modelStateInP() const;

  // The run's measurements (core/analysis/measurement_names.h); plan_error when measured_peak > 0.
  std::vector<Measurement> measurements(double measured_peak) const;
  // The plan a run recorded, or nothing when it has none.
  static std::optional<MemoryPlan> fromRun(const Run& run);
};

MemoryPlan planMemory(const PlanInputs& in);

// Model state per rank of a data-parallel run: every rank keeps all of Adam's state (16P), or each
// keeps its 1/N (ZeRO-1: 4P + 4P + 8P/N). `parameter_bytes` is 4P.
double replicatedModelStateBytes(double parameter_bytes);
double shardedModelStateBytes(double parameter_bytes, int world_size);

}  // namespace sawtooth
