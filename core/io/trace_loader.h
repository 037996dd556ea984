#pragma once
// Opens any trace Sawtooth reads, recognised by content rather than by name: PyTorch snapshots
// (.pickle, .pickle.gz), torch.profiler Chrome traces (.json, .json.gz) and memory timelines
// (.json, .json.gz, .raw.json.gz), JAX device memory profiles (pprof, gzip or not) and .sawtooth
// files.

#include <string>

#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

enum class TraceFormat { PytorchSnapshot, ProfilerTrace, MemoryTimeline, JaxMemoryProfile, Html, Native, Unknown };

// Errors read "PATH: what is wrong (where)".
Result<Trace> loadTrace(const std::string& path, Progress* progress = nullptr);
// For importers fed from memory (tests, fuzzers): bytes already read and decompressed.
Result<Trace> loadTraceFromBytes(std::string bytes, const std::string& label, Progress* progress = nullptr);
TraceFormat detectFormat(const std::string& bytes);

}  // namespace sawtooth
