#pragma once
// JAX device memory profiles (jax.profiler.save_device_memory_profile: a pprof Profile protobuf,
// gzip-compressed or not), read as a snapshot of the live buffers at the moment of the dump.
//
// XLA writes one sample per (stack, buffer size, device) with the values [allocations (count),
// space (bytes)] = [n, n × size] and the labels kind = buffer | executable and, for buffers,
// device = "cuda:0", "cpu:0", ...; executables carry their generated code's size and no device.
// Each buffer becomes an allocator event (alloc, its size, its stack) at time 0 on its device;
// executables are listed in the run's configuration. Sizes, counts and live bytes per device are
// the run's measurements ("live_bytes cuda:0"). When a file NAME.memory_analysis.json lies beside
// the profile (bench/gpu/jax_memory_profile.py writes one), its memory_analysis() figures become
// the run's jax_plan_* measurements: XLA's compile-time plan for the same step.

#include <string>
#include <string_view>

#include "core/io/read_limits.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

// Starts like a pprof Profile: field 1 (sample_type), length-delimited, holding a varint field.
bool looksLikePprof(std::string_view bytes);
// `path` (may be empty) is where the profile was read from: the memory_analysis file is looked
// for beside it.
// Within the budget's limits (memory, events) when one is given.
Result<Trace> importJaxMemoryProfile(const std::string& bytes, const std::string& path, Progress* progress = nullptr,
                                     ReadBudget* budget = nullptr);

// "DIR/NAME.prof", "DIR/NAME.prof.gz", "DIR/NAME.pb.gz" → "DIR/NAME.memory_analysis.json".
std::string jaxMemoryAnalysisPath(const std::string& profile_path);
// memory_analysis() figures as the generator writes them: {"argument_size_in_bytes": N,
// "output_size_in_bytes": N, "alias_size_in_bytes": N, "temp_size_in_bytes": N,
// "generated_code_size_in_bytes": N, ...}; added to the trace's first run as jax_plan_* bytes.
Status addJaxMemoryAnalysis(Trace& trace, const std::string& json);

}  // namespace sawtooth
