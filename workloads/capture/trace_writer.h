#pragma once
// The recorder's writer thread. It drains the capture queues every `interval`, puts the records
// in time order, attributes phases, runs and categories, and appends them to the .sawtooth file
// in one transaction per batch, so a killed recorder loses at most the last interval.
// Plain C++ (no LibTorch): the stack symbolizer is handed in by the LibTorch side.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "workloads/capture/bounded_queue.h"
#include "workloads/capture/capture_record.h"
#include "workloads/capture/live_blocks.h"
#include "core/io/native_format.h"

namespace sawtooth::capture {

using RecordQueue = BoundedQueue<CaptureRecord>;
// Turns captured stack contexts into frames (innermost first), one list per context.
using Symbolizer = std::function<std::vector<std::vector<Frame>>(const std::vector<std::shared_ptr<void>>&)>;

class TraceWriter {
 public:
  struct Stats {
    uint64_t events = 0;
    uint64_t batches = 0;
    uint64_t category_updates = 0;
    uint64_t untracked_tags = 0;  // tags of blocks born before the capture began
    uint64_t kernels = 0;
  };

  TraceWriter(std::unique_ptr<NativeWriter> file, int64_t t0_ns);
  ~TraceWriter();

  void addQueue(RecordQueue* queue, bool live);  // live: stamped as it happens (held back briefly)
  void setSymbolizer(Symbolizer symbolizer) { symbolizer_ = std::move(symbolizer); }
  void start(std::chrono::milliseconds interval);
  // Drains everything, writes what is left and closes the file (WAL off). Returns the first error.
  Status finish();

  // Called from the workload thread before the matching record is pushed. An annotation (a
  // user's range) is written as a band but never becomes the phase events are attributed to.
  void definePhase(uint32_t id, std::string name, uint16_t run, PhaseKind kind = PhaseKind::Phase);
  void defineRun(uint16_t id, Run run);
  void setMeta(const std::string& key, const std::string& value);
  // Called from CUPTI's thread.
  void addKernels(std::vector<KernelInterval> kernels, const std::vector<std::string>& names_by_id);

  Stats stats() const;
  // The first write error, if any (the recorder reports it and stops).
  std::string error() const;

  // One drain-and-write pass (the thread calls this; tests call it directly). `everything`
  // disables the hold-back of the newest records.
  void flushOnce(bool everything);

 private:
  void run(std::chrono::milliseconds interval);
  void process(CaptureRecord& r);
  void processMemory(CaptureRecord& r);
  uint32_t phaseAt(int64_t t_ns, uint16_t* run) const;
  std::function<bool(uint32_t)> bornInForward(uint16_t run) const;
  uint32_t currentPhase() const { return phase_stack_.empty() ? kNoPhase : phase_stack_.back(); }
  void applyUpdates();
  Status writeBatch();
  void fail(const std::string& message);

  std::unique_ptr<NativeWriter> file_;
  const int64_t t0_ns_;
  Symbolizer symbolizer_;
  std::vector<std::pair<RecordQueue*, bool>> queues_;

  // Shared with the workload and CUPTI threads.
  mutable std::mutex mutex_;
  std::map<uint32_t, Phase> pending_phases_;  // defined, not yet begun in the stream
  std::map<uint16_t, Run> pending_runs_;
  std::map<std::string, std::string> pending_meta_;
  std::vector<KernelInterval> pending_kernels_;
  std::vector<std::string> kernel_names_;
  size_t kernel_names_written_ = 0;
  std::string error_;
  Stats stats_;

  // Writer thread only.
  std::vector<CaptureRecord> held_back_;
  std::map<uint32_t, Phase> phases_;  // every phase seen in the stream
  std::vector<uint32_t> phase_stack_;
  uint16_t current_run_ = kNoRun;
  LiveBlocks live_;
  std::vector<LiveBlocks::Update> updates_;
  EventStore batch_;
  uint64_t batch_first_seq_ = 0;
  std::vector<std::pair<size_t, std::shared_ptr<void>>> batch_contexts_;  // batch index, context
  StackTable stacks_;
  size_t frames_written_ = 0, stacks_written_ = 0;
  std::vector<uint32_t> dirty_phases_;
  std::vector<uint16_t> dirty_runs_;

  std::thread thread_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  std::atomic<bool> stopping_{false};
  bool finished_ = false;
};

}  // namespace sawtooth::capture
