#include "app/sawtooth-record/program/recording_watcher.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/io/native_writer.h"
#include "core/model/recording_status.h"

namespace sawtooth::record {
namespace {

int g_watcher_fd = -1;  // the recorder's end, for its fatal-signal handler

// In the recorder: says which signal crashes it, then dies by it as it would have.
void sayCrashed(int signal) {
  if (g_watcher_fd >= 0) {
    char message[8] = {'C', static_cast<char>('0' + signal / 10), static_cast<char>('0' + signal % 10), '\0'};
    [[maybe_unused]] ssize_t w = ::write(g_watcher_fd, message, 4);
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// When the process started (clock ticks after boot), to tell a pid reused since from the one announced.
unsigned long long startTime(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close_paren = text.rfind(')');
  if (close_paren == std::string::npos) return 0;
  std::string rest = text.substr(close_paren + 2);
  unsigned long long value = 0;
  char* p = rest.data();
  for (int field = 3; field <= 22 && p && *p; ++field) {  // field 22: starttime
    char* end = nullptr;
    if (field == 3) {
      end = std::strchr(p, ' ');
    } else {
      value = std::strtoull(p, &end, 10);
    }
    if (!end) return 0;
    p = end + 1;
  }
  return value;
}

void appendProgressLine(const std::string& path, const nlohmann::json& line) {
  if (path.empty()) return;
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  [[maybe_unused]] ssize_t w = ::write(fd, text.data(), text.size());
  ::close(fd);
}

[[noreturn]] void watch(int fd, pid_t recorder, const WatcherOptions& options) {
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) std::signal(s, SIG_IGN);
  std::vector<std::string> files;
  std::set<std::string> folders;
  std::vector<std::pair<pid_t, unsigned long long>> processes;
  int crash_signal = 0;
  bool done = false;
  std::string pending;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<size_t>(n));
    for (size_t end; (end = pending.find('\0')) != std::string::npos; pending.erase(0, end + 1)) {
      if (end < 1) continue;
      const std::string text = pending.substr(1, end - 1);
      switch (pending[0]) {
        case 'F': files.push_back(text); break;
        case 'D': folders.insert(text); break;
        case 'P': {
          const pid_t pid = static_cast<pid_t>(std::atoi(text.c_str()));
          if (pid > 0 && pid != recorder) processes.emplace_back(pid, startTime(pid));
          break;
        }
        case 'C': crash_signal = std::atoi(text.c_str()); break;
        case 'E': done = true; break;
      }
    }
  }
  if (done || (files.empty() && folders.empty() && processes.empty())) std::_Exit(0);
  const std::string reason = crash_signal ? "crashed" : "killed";
  const std::string detail =
      crash_signal ? fmt::format("sawtooth-record crashed (signal {}, {}); everything committed before is kept",
                                 crash_signal, strsignal(crash_signal))
                   : "sawtooth-record was killed (SIGKILL or the out-of-memory killer); everything committed before "
                     "is kept";
  std::vector<std::string> errors;
  for (const std::string& path : files)
    if (Status st = markIncomplete(path, reason, detail); !st) errors.push_back(fmt::format("{}: {}", path, st.error().message));
  for (const std::string& folder : folders) {
    ::unlink((folder + "/channel").c_str());
    ::rmdir(folder.c_str());
  }
  size_t killed = 0, left = 0;
  for (const auto& [pid, started] : processes) {
    if (started == 0 || startTime(pid) != started) continue;  // gone, or its pid reused
    if (options.keep_running) {
      ++left;
    } else if (::kill(pid, SIGKILL) == 0) {
      ++killed;
    }
  }
  nlohmann::json line = {{"stage", "error"},
                         {"kind", reason},
                         {"message", fmt::format("incomplete recording: {}: {}", reason, detail)},
                         {"files", files}};
  if (crash_signal) line["signal"] = crash_signal;
  if (!errors.empty()) line["mark_errors"] = errors;
  appendProgressLine(options.progress_path, line);
  std::fprintf(stderr, "sawtooth-record: %s: %s\n", reason.c_str(), detail.c_str());
  for (const std::string& path : files) std::fprintf(stderr, "sawtooth-record: %s is marked incomplete\n", path.c_str());
  for (const std::string& e : errors) std::fprintf(stderr, "sawtooth-record: marking %s failed\n", e.c_str());
  if (killed) std::fprintf(stderr, "sawtooth-record: killed %zu process(es) of the program left without it\n", killed);
  if (left) std::fprintf(stderr, "sawtooth-record: %zu process(es) of the program keep running (--keep-running)\n", left);
  std::_Exit(0);
}

}  // namespace

RecordingWatcher RecordingWatcher::start(const WatcherOptions& options) {
  int link[2];
  if (::pipe2(link, O_CLOEXEC) != 0) return RecordingWatcher(-1);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t recorder = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(link[0]);
    ::close(link[1]);
    return RecordingWatcher(-1);
  }
  if (child == 0) {
    ::close(link[1]);
    watch(link[0], recorder, options);
  }
  ::close(link[0]);
  g_watcher_fd = link[1];
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(s, sayCrashed);
  return RecordingWatcher(link[1]);
}

RecordingWatcher::~RecordingWatcher() {
  if (fd_ < 0) return;
  done();
  if (g_watcher_fd == fd_) g_watcher_fd = -1;
  ::close(fd_);
}

void RecordingWatcher::done() { send('E', {}); }

void RecordingWatcher::send(char kind, const std::string& text) const {
  if (fd_ < 0) return;
  std::string message(1, kind);
  message += text;
  message.push_back('\0');
  [[maybe_unused]] ssize_t w = ::write(fd_, message.data(), message.size());
}

}  // namespace sawtooth::record
