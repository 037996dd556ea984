#pragma once
// Everything recorded from one process of the program (found by its pid): the connections its
// shim, allocator tracker and CUPTI library opened, their frame/stack/name tables, the merger
// that puts their streams in time order, and the trace file, created when the first record
// arrives (a process that records nothing — torchrun's launcher — leaves no file).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture/ingest/interned_tables.h"
#include "capture/ingest/program_trace_sink.h"
#include "core/io/output_claim.h"
#include "core/recording/wire.h"
#include "capture/ingest/stream_merger.h"
#include "capture/writer/capture_window.h"
#include "core/util/result.h"

namespace sawtooth::record {

// What every process' trace shares: the recording's clock origin, the command, and where files go.
struct RecordingContext {
  int64_t t0_ns = 0;
  std::vector<std::string> command;
  std::string cwd;
  std::map<std::string, std::string> meta;  // options and the environment of interest
  // Claims the file for a process that starts recording (rank < 0: not a distributed rank).
  std::function<Result<OutputClaim>(int pid, int rank)> claim_path;
  // A message for the user (stderr and the progress stream).
  std::function<void(const std::string& level, const std::string& message)> notify;
  // A process of the program connected for the first time (its pid, from the kernel).
  std::function<void(int pid)> process_connected;
  // A process started writing its file (for the progress stream: what a live view follows).
  std::function<void(int pid, int rank, const std::string& path)> file_started;
  int64_t hold_back_ns = 50'000'000;
  // --steps A:B and --window-events N; a program's steps are its optimizer steps: step k begins
  // when the k-th optimizer.step() of the process returns (step 0 at its start).
  capture::WindowOptions window;
};

class ProcessRecording {
 public:
  ProcessRecording(int pid, const RecordingContext& context) : pid_(pid), context_(context), merger_(context.hold_back_ns) {}
  ~ProcessRecording();

  Status onHello(int connection, const nlohmann::json& hello);
  Status onFrame(int connection, const wire::Header& header, std::string_view payload);
  void onConnectionClosed(int connection);
  // Moves what every stream has passed into the file; called a few times a second.
  void tick(int64_t now);
  // Writes what is left, ends what is open and closes the file (if there is one). `exit` says how
  // the process ended when the recorder knows it (the program itself: "exit 0", "killed by
  // signal 9 (Killed)"), else empty; `exit_signal` the signal that ended it, else 0.
  Status finish(const std::string& exit, int exit_signal = 0);

  int pid() const { return pid_; }
  int rank() const { return rank_; }
  bool hasFile() const { return sink_ != nullptr || finished_with_file_; }
  const std::string& path() const { return path_; }
  bool connected() const;
  // Every connection said goodbye after its final delivery.
  bool clean() const;
  // Records it sent (of any kind), and whether writing its file failed (a full disk).
  uint64_t records() const;
  bool writeFailed() const { return write_failed_; }
  const std::string& writeFailure() const { return write_failure_; }
  // The program's command line as its first hello named it (argv), for messages.
  std::string commandLine() const;
  std::string describe() const;  // "pid 123 (rank 0)"
  // One line on what was recorded, for the user.
  std::string summary() const;
  // A process it said it started (the shim's meta child_process.PID, child_fork.PID, child_shell.N).
  struct Child {
    enum class How { kStarted, kForked, kShell } how = How::kStarted;
    std::string command;
  };
  // Its children by pid; os.system's shells, whose pid Python never sees, by -N (N from 1).
  std::map<int, Child> childProcesses() const;
  // Children it started past the shim's limit on named ones (child_processes_unnamed).
  uint64_t unnamedChildren() const;
  // Its children that the recording left out ("pid 12 (sh -c make): never connected ..."), into
  // its file's meta (processes_left_out) when it has one; before finish().
  void noteLeftOut(const std::vector<std::string>& left_out);

 private:
  struct Connection {
    std::string role;
    bool tracks_modules = false;  // its hello says "modules": true (its records' modules are its word)
    bool open = true;
    bool bye = false;
    std::string bye_reason;
    std::string bye_details;  // what the sender counted, as JSON
    // The sender's ids for what it defined, to the process' interned ones.
    std::unordered_map<uint32_t, FramePtr> frames;
    std::unordered_map<uint32_t, std::shared_ptr<const StackFrames>> stacks;  // null: dropped (budget)
    std::unordered_map<uint32_t, uint32_t> names;
  };
  struct OpenPhase {
    uint32_t name = 0;
    uint32_t id = 0;
  };

  Status onRecords(int connection, Connection& c, uint8_t stream, std::string_view payload);
  Status onKernels(int connection, Connection& c, std::string_view payload);
  Status onDefinitions(Connection& c, const wire::Header& h, std::string_view payload);
  Status onModules(std::string_view payload);
  // The file's id of the program's module `id` (kNoModule for none or one never named).
  uint32_t moduleOf(uint32_t id);
  void onMeta(const nlohmann::json& meta);
  void onNotice(const std::string& level, std::string message);
  ProgramTraceSink* sink();
  void release(capture::CaptureRecord&& r);
  void mergeBounded();
  StreamMerger::Key key(int connection, uint8_t stream) const {
    return (static_cast<uint32_t>(connection) << 8) | stream;
  }

  const int pid_;
  const RecordingContext& context_;
  int rank_ = -1;
  nlohmann::json identity_ = nlohmann::json::object();  // from the hellos
  std::map<int, Connection> connections_;
  StreamMerger merger_;
  std::unique_ptr<ProgramTraceSink> sink_;
  bool finished_with_file_ = false;
  bool sink_failed_ = false;
  std::string sink_error_;  // why the file could not be created, as the writer said it
  std::string path_;
  std::map<std::string, std::string> pending_meta_;

  InternedTables tables_;
  size_t definitions_ = 0;  // sender ids mapped, over every connection
  std::vector<OpenPhase> open_phases_;
  std::map<uint64_t, uint32_t> open_annotations_;  // range id -> phase id
  int64_t optimizer_steps_ = 0;

  // The program's modules (the shim's ids, shared by its process's connections) as the file's
  // modules: one file module per (name, class, parent), so a model built again is the same tree.
  std::map<uint32_t, uint32_t> module_ids_;
  std::map<std::tuple<std::string, std::string, uint32_t>, uint32_t> module_keys_;
  std::vector<Module> modules_;
  size_t modules_defined_ = 0;  // handed to the sink
  uint64_t unknown_modules_ = 0;

  std::vector<std::string> kernel_names_;
  std::unordered_map<uint32_t, uint32_t> kernel_name_ids_;  // process name id -> the file's kernel name id

  struct Counts {
    uint64_t allocator = 0, driver = 0, samples = 0, tags = 0, phases = 0, annotations = 0, kernels = 0, modules = 0,
             module_calls = 0;
    uint64_t dropped_in_program = 0;
    uint64_t dropped_write_failed = 0;   // records that came after the file could not be written
    uint64_t dropped_definitions = 0;    // frames, stacks and names beyond the per-process maps
    uint64_t forced_releases = 0;        // records let out of the merger before their time (a stream stuck)
    uint64_t notices = 0, dropped_notices = 0, dropped_meta = 0;
  } counts_;
  std::vector<std::string> notices_;
  bool write_failed_ = false;
  std::string write_failure_;  // its reason, as the file says it
  int64_t last_heartbeat_ = 0;
};

}  // namespace sawtooth::record
