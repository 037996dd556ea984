#pragma once
// The native .sawtooth file: an SQLite database that anyone can query with sqlite3.
// writeNative() saves a whole trace (through NativeWriter, native_writer.h, which the recorder
// also uses to write batch by batch); readNative() loads one. Readers refuse files whose format
// version is newer than the one they know.

#include <string>

#include "core/io/native_schema.h"
#include "core/io/native_writer.h"
#include "core/io/read_limits.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

Status writeNative(const Trace& trace, const std::string& path, Progress* progress = nullptr);
Result<Trace> readNative(const std::string& path, Progress* progress = nullptr);
// The same, choosing how many threads read the events table (io/native_event_reader.h).
struct EventReadOptions;
Result<Trace> readNative(const std::string& path, Progress* progress, const EventReadOptions& options);
// The same within limits (memory, time, counts).
Result<Trace> readNative(const std::string& path, Progress* progress, const ReadLimits& limits);
Result<Trace> readNative(const std::string& path, Progress* progress, const ReadLimits& limits,
                         const EventReadOptions& options);
Result<Trace> readNative(const std::string& path, Progress* progress, ReadBudget& budget,
                         const EventReadOptions& options);

}  // namespace sawtooth
