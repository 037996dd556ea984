#pragma once
// The recorder's end of the channel: a Unix socket in a private folder (mode 0700) that every
// process of the recorded program connects to — its Python shim, its allocator tracker, its
// CUPTI library. A thread reads every connection, identifies the process by the kernel's peer
// credentials (not by what it claims), and feeds its ProcessRecording. Plain POSIX; no LibTorch.

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capture/ingest/process_recording.h"
#include "core/util/result.h"

namespace sawtooth::record {

struct RecordedProcess {
  int pid = 0;
  int rank = -1;
  std::string path;  // empty when the process recorded nothing
  bool clean = false;
  uint64_t records = 0;
  std::string summary;
  std::string command;  // its command line, as it said (argv)
  std::string error;    // writing its file failed
  bool disk_full = false;
  std::string write_failure;  // "disk full", "file size limit reached", ... (what the file says)
  // The processes it started that the recording left out, by pid (<= 0: none known, os.system's shells):
  // "pid 12 (sh -c make): ..."
  // (also in its file's meta processes_left_out).
  std::vector<std::pair<int, std::string>> left_out;
};

// How a process ended, when the recorder knows it (the program it started).
struct ProcessEnd {
  std::string description;  // "exit 0", "killed by signal 9 (Killed)"
  int signal = 0;
};

class ShimServer {
 public:
  static Result<std::unique_ptr<ShimServer>> start(const RecordingContext& context);
  ~ShimServer();

  const std::string& socketPath() const { return socket_path_; }
  // Connections open now, and ever made.
  int openConnections() const { return open_.load(); }
  int connectionsMade() const { return made_.load(); }

  // The private folder the socket is in (for whoever cleans up after a recorder that died).
  const std::string& folder() const { return dir_; }

  // Reads what the connections still hold, closes them, and finishes every process' file.
  // `exits` says how the processes the recorder waited for ended.
  std::vector<RecordedProcess> stop(const std::map<int, ProcessEnd>& exits);

 private:
  struct Connection;
  ShimServer(const RecordingContext& context, int listen_fd, std::string dir, std::string socket_path);
  void run();
  void acceptAll();
  // Returns false when the connection is done (closed by the peer or refused for bad data).
  bool readFrom(Connection& c);
  bool feed(Connection& c, std::string_view bytes);
  void closeConnection(Connection& c, const std::string& why);
  // Closes the connection holding the most unfinished bytes while all of them hold more than the budget.
  void boundUnfinished();

  const RecordingContext& context_;
  int listen_fd_ = -1;
  std::string dir_, socket_path_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> open_{0}, made_{0};
  int next_connection_ = 1;
  std::map<int, std::unique_ptr<Connection>> connections_;
  std::map<int, std::unique_ptr<ProcessRecording>> processes_;  // by pid
  size_t unfinished_bytes_ = 0;  // frames not yet whole, over every connection
  uint64_t refused_processes_ = 0;
};

}  // namespace sawtooth::record
