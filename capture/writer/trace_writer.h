#pragma once
// The recorder's writer thread. It drains the capture queues every `interval` (25 ms in the
// recorder; sooner when a producer finds its queue full), puts the records in time order, attributes phases, runs and
// categories, and appends them to the .sawtooth file in one transaction per batch, so a killed
// recorder loses at most the last interval. Every step costs the same however long the run has
// been going: nothing here looks through the whole recording again.
// Plain C++ (no LibTorch): anything that produces CaptureRecords can feed it; the stack
// symbolizer is handed in by the LibTorch side.
//
// Windows (capture_window.h): only steps A to B, and/or only the last N events, with the state
// at the window's start written as a baseline.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/io/native_writer.h"
#include "capture/writer/bounded_queue.h"
#include "capture/writer/capture_record.h"
#include "capture/writer/capture_window.h"
#include "capture/writer/live_blocks.h"
#include "capture/writer/phase_index.h"
#include "capture/writer/queue_policy.h"
#include "capture/writer/sequence_map.h"

namespace sawtooth::capture {

using RecordQueue = BoundedQueue<CaptureRecord>;
// Turns captured stack contexts into frames (innermost first), one list per context.
using Symbolizer = std::function<std::vector<std::vector<Frame>>(const std::vector<std::shared_ptr<void>>&)>;

class TraceWriter {
 public:
  struct Stats {
    uint64_t events = 0;  // rows written (their seq numbers are 0 .. events - 1 before a window)
    uint64_t batches = 0;
    uint64_t category_updates = 0;
    uint64_t untracked_tags = 0;  // tags of blocks born before the capture began
    uint64_t kernels = 0;
    uint64_t outside_steps = 0;   // records not written: before step A or from step B on
  };

  TraceWriter(std::unique_ptr<NativeWriter> file, int64_t t0_ns, WindowOptions window = {});
  ~TraceWriter();

  void addQueue(RecordQueue* queue);
  void setSymbolizer(Symbolizer symbolizer) { symbolizer_ = std::move(symbolizer); }
  // Called once, on the writer thread, when a write fails (a full disk): the recording cannot
  // go on, and the sources should stop.
  void onWriteFailure(std::function<void()> callback) { on_failure_ = std::move(callback); }
  WriterWakeup* wakeup() { return &wakeup_; }
  const std::string& path() const { return file_->path(); }
  void start(std::chrono::milliseconds interval);
  // Drains everything, writes what is left, says how the recording ended (an empty reason: it is
  // complete) and closes the file. Returns the first error.
  Status finish(const std::string& incomplete_reason = {}, const std::string& detail = {});

  // Called from the workload thread before the matching record is pushed. An annotation (a
  // user's range) is written as a band but never becomes the phase events are attributed to.
  void definePhase(uint32_t id, std::string name, uint16_t run, PhaseKind kind = PhaseKind::Phase);
  // A module of the recorded program, ids dense from 0 (a parent before its children); records
  // name it (ModuleEnter/ModuleExit, a Memory record's or a Tag's module).
  void defineModule(uint32_t id, Module module);
  void defineRun(uint16_t id, Run run);
  void setMeta(const std::string& key, const std::string& value);
  // Called from CUPTI's threads: kernel intervals, and the names of kernels seen for the first time.
  void addKernels(std::vector<KernelInterval> kernels, std::vector<std::pair<uint32_t, std::string>> new_names);

  Stats stats() const;
  // The first write error, if any (the recorder reports it and stops), and its errno.
  std::string error() const;
  int errorNumber() const { return error_errno_.load(); }
  bool failed() const { return failed_.load(); }

  // One drain-and-write pass (the thread calls this; tests call it directly). `everything`
  // disables the hold-back of the newest records.
  void flushOnce(bool everything);

 private:
  struct PhaseInfo {
    int64_t begin_ns = 0;
    int64_t end_ns = 0;
    uint32_t name = 0;  // index into phase_names_
    uint32_t file_id = kNoPhase;
    uint16_t run = kNoRun;
    PhaseKind kind = PhaseKind::Phase;
    bool begun = false;
    bool ended = false;
  };
  struct PendingPhase {
    std::string name;
    uint16_t run = kNoRun;
    PhaseKind kind = PhaseKind::Phase;
  };
  struct OpenCall {
    uint32_t module = kNoModule;
    Pass pass = Pass::Forward;
    int64_t begin_ns = 0;
  };

  void run(std::chrono::milliseconds interval);
  void process(CaptureRecord& r);
  void processMemory(CaptureRecord& r, int64_t t);
  void processModuleCall(const CaptureRecord& r, int64_t t);
  void closeCall(const OpenCall& call, int64_t end_ns);
  Pass passOfPhase(uint32_t phase) const;
  void pushEvent(const Event& e, std::shared_ptr<void> context);
  uint32_t phaseFor(int64_t t, uint16_t* run);
  uint32_t fileIdOf(uint32_t phase);
  uint32_t internPhaseName(const std::string& name);
  std::function<bool(uint32_t)> bornInForward(uint16_t run) const;
  uint32_t currentPhase() const { return phase_stack_.empty() ? kNoPhase : phase_stack_.back(); }
  void openWindow(int64_t t);
  void applyUpdates();
  Status writeBatch(int64_t horizon_ns);
  Status slideWindow(bool exact);
  Status writeBaseline();
  Status writeSummary();
  void fail(const std::string& message, int error_number);

  std::unique_ptr<NativeWriter> file_;
  const int64_t t0_ns_;
  Symbolizer symbolizer_;
  std::function<void()> on_failure_;
  std::vector<RecordQueue*> queues_;

  // Shared with the workload and CUPTI threads.
  mutable std::mutex mutex_;
  std::map<uint32_t, PendingPhase> pending_phases_;  // defined, not yet begun
  std::map<uint32_t, Module> pending_modules_;
  std::map<uint16_t, Run> pending_runs_;
  std::map<std::string, std::string> pending_meta_;
  std::vector<KernelInterval> pending_kernels_;
  std::vector<std::pair<uint32_t, std::string>> pending_kernel_names_;
  std::string error_;
  std::atomic<int> error_errno_{0};
  std::atomic<bool> failed_{false};
  Stats stats_;

  // Writer thread only.
  std::vector<CaptureRecord> held_back_;
  std::vector<CaptureRecord> records_;              // this pass's records (kept: no reallocation)
  std::vector<size_t> run_ends_;                    // where each queue's records end in records_
  std::vector<std::pair<int64_t, size_t>> order_;  // (time, index): the order to process them
  std::vector<PhaseInfo> phases_;  // by session phase id
  std::vector<std::string> phase_names_;
  std::unordered_map<std::string, uint32_t> phase_name_ids_;
  uint32_t forward_name_, backward_name_, recompute_name_, optimizer_name_;
  // Each thread's open module calls (the thread of a ModuleEnter), and the thread that entered or
  // left a module last: an event whose source does not know its module belongs to that thread's
  // innermost open call (the recorded program's modules run where it allocates, as a rule).
  std::unordered_map<uint64_t, std::vector<OpenCall>> open_calls_;
  uint64_t module_thread_ = 0;
  std::vector<ModuleCall> calls_;  // ended since the last batch
  SequenceMap sequences_;          // which call made which autograd node (records with a NodeLink)
  PhaseIndex phase_index_;
  std::vector<uint32_t> phase_stack_;
  uint32_t next_file_phase_ = 0;
  int64_t last_t_ = INT64_MIN;  // time of the newest record processed
  uint16_t current_run_ = kNoRun;
  LiveBlocks live_;
  CaptureWindow window_;
  std::vector<LiveBlocks::Update> updates_;
  EventStore batch_;
  uint64_t next_seq_ = 0;  // seq of the next row written
  std::vector<std::pair<size_t, std::shared_ptr<void>>> batch_contexts_;  // batch index, context
  // Stack ids of contexts symbolized before, by address. Only contexts someone else also holds
  // (a recorded program's stack, shared by every record from it) are kept: a context made for
  // one event would only be held alive here. Bounded; emptied when full.
  std::unordered_map<const void*, std::pair<std::shared_ptr<void>, uint32_t>> known_stacks_;
  StackTable stacks_;
  size_t frames_written_ = 0, stacks_written_ = 0;
  std::vector<uint32_t> dirty_phases_;
  std::vector<uint16_t> dirty_runs_;
  std::vector<KernelInterval> waiting_kernels_;  // newer than what the record stream has reached
  bool baseline_dirty_ = false;
  int64_t window_start_ns_ = INT64_MIN;  // where the file's window begins (steps or last N)
  uint64_t outside_steps_ = 0, untracked_tags_ = 0;

  std::thread thread_;
  WriterWakeup wakeup_;
  std::atomic<bool> stopping_{false};
  bool finished_ = false;
};

}  // namespace sawtooth::capture
