#pragma once
// A recorder killed outright (kill -9, the out-of-memory killer) or crashed cannot close its files.
// So a small watcher process, forked when the recording starts, waits for the recorder to go: when
// it goes without saying it is done, the watcher marks every file the recorder had announced
// (incomplete_reason killed, or crashed when the recorder's fatal-signal handler could say so),
// folds each into one self-contained file (no -wal/-shm left), removes the socket folder, and —
// unless --keep-running — kills the program's processes that had connected (the program itself
// dies with its recorder by PR_SET_PDEATHSIG). It says so on stderr and in the --progress file.
// The watcher ignores the signals a terminal or the app sends: only SIGKILL or the recorder's end
// ends it. Start it before any thread starts (fork keeps only the calling thread) and before
// anything is claimed (it must hold no lock the recorder gives up).

#include <string>
#include <sys/types.h>

namespace sawtooth::record {

struct WatcherOptions {
  std::string progress_path;  // --progress: the watcher appends its error line there
  bool keep_running = false;  // --keep-running: the program's processes outlive their recorder
};

class RecordingWatcher {
 public:
  // Forks the watcher. Without fork (resources exhausted) the recording goes on unwatched.
  static RecordingWatcher start(const WatcherOptions& options);
  RecordingWatcher(RecordingWatcher&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RecordingWatcher& operator=(RecordingWatcher&&) = delete;
  RecordingWatcher(const RecordingWatcher&) = delete;
  // Returning normally is a clean end (a killed or crashed recorder runs no destructor).
  ~RecordingWatcher();

  void announceFile(const std::string& path) const { send('F', path); }
  void announceFolder(const std::string& path) const { send('D', path); }
  void announceProcess(pid_t pid) const { send('P', std::to_string(pid)); }
  // The recording ended cleanly: the watcher leaves without touching anything.
  void done();
  bool watching() const { return fd_ >= 0; }

 private:
  explicit RecordingWatcher(int fd) : fd_(fd) {}
  void send(char kind, const std::string& text) const;
  int fd_ = -1;
};

}  // namespace sawtooth::record
