#pragma once
// The native .sawtooth file: an SQLite database (WAL) that anyone can query with sqlite3.
// NativeWriter appends incrementally in batched transactions (the recorder's writer thread uses
// it, so a killed recording keeps every committed batch); writeNative() saves a whole trace.
// Readers refuse files whose format version is newer than the one they know.

#include <memory>
#include <span>
#include <string>

#include "core/io/native_schema.h"
#include "core/io/read_limits.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

class NativeWriter {
 public:
  // Creates (or replaces) the file and its schema.
  static Result<std::unique_ptr<NativeWriter>> create(const std::string& path);
  ~NativeWriter();

  Status setMeta(const std::string& key, const std::string& value);
  Status writeDevice(const DeviceInfo& device);
  Status writeRun(uint16_t id, const Run& run);
  Status writePhase(uint32_t id, const Phase& phase);
  // Frames and stacks from the given ids on (tables only grow).
  Status writeStacks(const StackTable& stacks, size_t first_frame, size_t first_stack);
  Status writeCounter(const Counter& counter);
  Status writeKernelName(uint32_t id, const std::string& name);
  Status appendKernels(std::span<const KernelInterval> kernels);
  // The allocator's segments at the trace's end (Trace::segments), marking them known.
  Status writeSegments(const std::vector<SnapshotSegment>& segments);
  // Attribution that arrives after an event was written (the recorder learns an allocation's
  // category when the workload names the tensor, or when the block dies).
  Status updateCategory(size_t seq, Category category);
  // Events [begin, end) of the store, with sequence numbers equal to their index.
  Status appendEvents(const EventStore& events, size_t begin, size_t end, Progress* progress = nullptr);
  // The same, numbering the first one `first_seq` (the recorder writes batch by batch).
  Status appendEventsAt(const EventStore& events, size_t begin, size_t end, uint64_t first_seq,
                        Progress* progress = nullptr);

  Status beginBatch();
  Status commitBatch();
  // Commits and turns the file into a self-contained database (no -wal/-shm files).
  Status finish();

 private:
  struct Impl;
  explicit NativeWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

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
