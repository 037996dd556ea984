#pragma once
// The seed's "count vs plan" across frameworks: XLA's compile-time plan for the seed's JAX network
// (compiled.memory_analysis() of jit(grad(loss)), which a JAX memory profile carries as jax_plan_*
// measurements when its .memory_analysis.json lies beside it) next to what LibTorch counted at run
// time for the same network (an anatomy recording's peak live bytes per category). The JAX step is
// a gradient only, so the optimizer's state has no row.

#include <optional>
#include <string>
#include <vector>

#include "core/model/trace.h"

namespace sawtooth {

struct JaxPlanRow {
  std::string what;  // "arguments (parameters + inputs)", ...
  double jax_plan_bytes = 0;
  std::optional<double> libtorch_count_bytes;  // absent without an anatomy recording, or no counterpart
};

// The run of `jax` carrying memory_analysis figures, or null.
const Run* jaxPlanRun(const Trace& jax);
// Empty when `jax` carries no plan. `anatomy` (may be null): the LibTorch recording of the same net,
// counted on `device`.
std::vector<JaxPlanRow> jaxPlanBesideCount(const Trace& jax, const Trace* anatomy, int16_t device);

}  // namespace sawtooth
