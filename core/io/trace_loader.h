#pragma once
// Opens any trace Sawtooth reads, recognised by content rather than by name: PyTorch snapshots
// (.pickle, .pickle.gz), torch.profiler Chrome traces (.json, .json.gz) and memory timelines
// (.json, .json.gz, .raw.json.gz), JAX device memory profiles (pprof, gzip or not) and .sawtooth
// files. Every reader works within ReadLimits (memory, time, sizes), and every trace it returns has
// passed the same value checks whatever its format (core/model/trace_checks.h): impossible values
// are refused with the event's index, odd but possible sequences are counted as anomalies.

#include <string>

#include "core/io/read_limits.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

enum class TraceFormat { PytorchSnapshot, ProfilerTrace, MemoryTimeline, JaxMemoryProfile, Html, Native, Unknown };

// Errors read "PATH: what is wrong (where)".
Result<Trace> loadTrace(const std::string& path, Progress* progress = nullptr, const ReadLimits& limits = {});
// For importers fed from memory (tests, fuzzers): bytes already read and decompressed.
Result<Trace> loadTraceFromBytes(std::string bytes, const std::string& label, Progress* progress = nullptr,
                                 const ReadLimits& limits = {});
TraceFormat detectFormat(std::string_view bytes);
// The file starts as an SQLite database does (a .sawtooth file, or another database).
bool isNativeFile(const std::string& path);

}  // namespace sawtooth
