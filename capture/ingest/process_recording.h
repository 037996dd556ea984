#pragma once
// Everything recorded from one process of the program (found by its pid): the connections its
// shim, allocator tracker and CUPTI library opened, their frame/stack/name tables, the merger
// that puts their streams in time order, and the trace file, created when the first record
// arrives (a process that records nothing — torchrun's launcher — leaves no file).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/recording/wire.h"
#include "capture/ingest/program_trace_sink.h"
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
  // Picks the file for a process that starts recording (rank < 0: not a distributed rank).
  std::function<std::string(int pid, int rank)> claim_path;
  // A message for the user (stderr and the progress stream).
  std::function<void(const std::string& level, const std::string& message)> notify;
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
  // the process ended when the recorder knows it (the program itself), else empty.
  Status finish(const std::string& exit);

  int pid() const { return pid_; }
  int rank() const { return rank_; }
  bool hasFile() const { return sink_ != nullptr || finished_with_file_; }
  const std::string& path() const { return path_; }
  bool connected() const;
  // Every connection said goodbye after its final delivery.
  bool clean() const;
  std::string describe() const;  // "pid 123 (rank 0)"
  // One line on what was recorded, for the user.
  std::string summary() const;

 private:
  struct Connection {
    std::string role;
    bool open = true;
    bool bye = false;
    std::string bye_reason;
    std::string bye_details;  // what the sender counted, as JSON
    std::map<uint32_t, Frame> frames;
    std::map<uint32_t, std::shared_ptr<const StackFrames>> stacks;
    std::map<uint32_t, std::string> names;
  };
  struct OpenPhase {
    uint32_t name = 0;
    uint32_t id = 0;
  };

  Status onRecords(int connection, Connection& c, uint8_t stream, std::string_view payload);
  Status onKernels(int connection, Connection& c, std::string_view payload);
  void onMeta(const nlohmann::json& meta);
  ProgramTraceSink* sink();
  void release(capture::CaptureRecord&& r);
  uint32_t internName(const std::string& name);
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
  std::string path_;
  std::map<std::string, std::string> pending_meta_;

  std::vector<std::string> names_;  // interned phase/annotation names
  std::map<std::string, uint32_t> name_ids_;
  std::vector<OpenPhase> open_phases_;
  std::map<uint64_t, uint32_t> open_annotations_;  // range id -> phase id
  int64_t optimizer_steps_ = 0;

  std::vector<std::string> kernel_names_;
  std::map<std::pair<int, uint32_t>, uint32_t> kernel_name_ids_;  // (connection, sender's id) -> ours

  struct Counts {
    uint64_t allocator = 0, driver = 0, samples = 0, tags = 0, phases = 0, annotations = 0, kernels = 0;
    uint64_t dropped_in_program = 0;
  } counts_;
  int64_t last_heartbeat_ = 0;
};

}  // namespace sawtooth::record
