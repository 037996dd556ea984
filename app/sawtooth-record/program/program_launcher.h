#pragma once
// Starts the recorded program as a child of sawtooth-record and follows it: the program gets the
// terminal's stdin, stdout and stderr unchanged (it inherits them) and stays in the terminal's
// process group, so Ctrl+C reaches it directly. Signals sent to the recorder by another process
// (the app's Stop, `kill`) are passed on to the program; a second one kills it. The program dies
// with its recorder (PR_SET_PDEATHSIG: SIGKILL when the recorder is gone) unless asked otherwise.
// The recorder is a child subreaper, so processes the program leaves behind are reaped here.
// Plain POSIX.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/recording/exit_code.h"
#include "core/util/result.h"

namespace sawtooth::record {

// The shell's conventions, which sawtooth-record's own failures follow too.
inline constexpr int kExitRecorderFailed = recording::kProgramNotRecorded;
inline constexpr int kExitCannotExecute = recording::kProgramCannotExecute;
inline constexpr int kExitNotFound = recording::kProgramNotFound;

struct LaunchFailure {
  int exit_code = kExitRecorderFailed;
  std::string message;
};

struct ProgramExit {
  int wait_status = 0;
  int exit_code = 0;         // what sawtooth-record exits with: the program's code, or 128 + signal
  std::string description;  // "exit 0", "exit 3", "killed by signal 9 (Killed)"
  bool signalled = false;
};

class ProgramLauncher {
 public:
  // Blocks the signals the recorder handles; call before any thread starts.
  ProgramLauncher();
  ~ProgramLauncher();
  ProgramLauncher(const ProgramLauncher&) = delete;
  ProgramLauncher& operator=(const ProgramLauncher&) = delete;

  // Finds the command (as the shell does, on PATH) and starts it with these variables set.
  // `die_with_recorder`: the program gets SIGKILL when the recorder dies (--keep-running: not).
  std::optional<LaunchFailure> start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                                     bool die_with_recorder = true);
  pid_t pid() const { return pid_; }

  struct WaitOptions {
    std::chrono::seconds kill_after{30};  // after a passed-on signal, SIGKILL when still running
    // After the program exits: how long to wait for `busy()` to turn false (its processes
    // delivering their last data), and the callback asked.
    std::chrono::milliseconds linger{10'000};
    std::function<bool()> busy;
    std::function<void(const std::string&)> notify;  // messages for the user
  };
  // Waits for the program (passing signals on) and then, up to `linger`, for busy() to clear.
  ProgramExit wait(const WaitOptions& options);
  // A signal asked the recording to stop early.
  bool interrupted() const { return interrupted_; }

 private:
  int signal_fd_ = -1;
  pid_t pid_ = -1;
  bool interrupted_ = false;
  bool subreaper_ = false;
};

// "exit 3", "killed by signal 9 (Killed)".
ProgramExit describeWaitStatus(int status);

}  // namespace sawtooth::record
