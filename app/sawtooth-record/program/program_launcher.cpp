#include "app/sawtooth-record/program/program_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

extern char** environ;

namespace sawtooth::record {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kHandled[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};

sigset_t handledSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kHandled) sigaddset(&set, s);
  return set;
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// The shell's search: a name with a slash is a path; otherwise the first executable on PATH.
std::optional<std::string> findCommand(const std::string& name, bool& exists_not_executable) {
  exists_not_executable = false;
  if (name.find('/') != std::string::npos) {
    if (isExecutableFile(name)) return name;
    exists_not_executable = access(name.c_str(), F_OK) == 0;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (isExecutableFile(candidate)) return candidate;
    if (access(candidate.c_str(), F_OK) == 0) exists_not_executable = true;
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace

ProgramExit describeWaitStatus(int status) {
  ProgramExit e;
  e.wait_status = status;
  if (WIFEXITED(status)) {
    e.exit_code = WEXITSTATUS(status);
    e.description = fmt::format("exit {}", e.exit_code);
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    e.exit_code = 128 + sig;
    e.signalled = true;
    e.description = fmt::format("killed by signal {} ({}){}", sig, strsignal(sig), WCOREDUMP(status) ? ", core dumped" : "");
  } else {
    e.exit_code = kExitRecorderFailed;
    e.description = fmt::format("wait status {}", status);
  }
  return e;
}

ProgramLauncher::ProgramLauncher() {
  const sigset_t set = handledSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  std::signal(SIGPIPE, SIG_IGN);  // a --progress reader that went away must not kill the recording
  std::signal(SIGXFSZ, SIG_IGN);  // the file size limit: a failed write, reported (disk full), not a death
  subreaper_ = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
}

ProgramLauncher::~ProgramLauncher() {
  if (signal_fd_ >= 0) close(signal_fd_);
}

std::optional<LaunchFailure> ProgramLauncher::start(const std::vector<std::string>& argv,
                                                    const std::map<std::string, std::string>& env,
                                                    bool die_with_recorder) {
  if (argv.empty()) return LaunchFailure{kExitRecorderFailed, "no command after --"};
  bool not_executable = false;
  const auto path = findCommand(argv[0], not_executable);
  if (!path)
    return not_executable ? LaunchFailure{kExitCannotExecute, fmt::format("{}: permission denied (not executable)", argv[0])}
                          : LaunchFailure{kExitNotFound, fmt::format("{}: command not found", argv[0])};

  // Everything the child needs is built before fork: between fork and exec only async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string_view kv(*e);
    const std::string key(kv.substr(0, kv.find('=')));
    if (!env.count(key)) env_strings.emplace_back(kv);
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0)
    return LaunchFailure{kExitRecorderFailed, fmt::format("cannot create a pipe: {}", std::strerror(errno))};
  sigset_t none;
  sigemptyset(&none);
  const pid_t recorder = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    close(report[0]);
    close(report[1]);
    return LaunchFailure{kExitRecorderFailed, fmt::format("cannot start {}: {}", argv[0], std::strerror(errno))};
  }
  if (pid == 0) {
    // The program starts as the shell would start it: default signal handling, nothing blocked.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s : {SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
      sigaction(s, &dfl, nullptr);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (die_with_recorder) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // kept across execve (not for set-user-ID programs)
      if (getppid() != recorder) _exit(kExitRecorderFailed);  // the recorder died before that
    }
    execve(path->c_str(), args.data(), envp.data());
    const int err = errno;
    [[maybe_unused]] ssize_t w = write(report[1], &err, sizeof err);
    _exit(kExitCannotExecute);
  }
  close(report[1]);
  int err = 0;
  ssize_t n;
  do n = read(report[0], &err, sizeof err);
  while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    int status = 0;
    waitpid(pid, &status, 0);
    return LaunchFailure{err == ENOENT ? kExitNotFound : kExitCannotExecute,
                         fmt::format("cannot execute {}: {}", *path, std::strerror(err))};
  }
  pid_ = pid;
  return std::nullopt;
}

ProgramExit ProgramLauncher::wait(const WaitOptions& options) {
  std::optional<ProgramExit> result;
  int passed_on = 0;
  std::optional<Clock::time_point> exited_at;
  Clock::time_point kill_at{};
  bool kill_pending = false;
  const auto killProgram = [&] {
    if (!result) kill(pid_, SIGKILL);
  };
  for (;;) {
    pollfd p{signal_fd_, POLLIN, 0};
    poll(&p, 1, 100);
    signalfd_siginfo info{};
    while (read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig == SIGCHLD) continue;  // reaped below
      interrupted_ = true;
      // From the terminal (Ctrl+C, hang-up) the program got it too; from a process, pass it on.
      const bool from_process = info.ssi_code == SI_USER || info.ssi_code == SI_QUEUE || info.ssi_code == SI_TKILL;
      if (result) {
        if (options.notify) options.notify("stopped waiting for the program's other processes");
        return *result;
      }
      if (!from_process) continue;
      if (++passed_on >= 2) {
        if (options.notify) options.notify(fmt::format("second {}: killing the program (SIGKILL)", strsignal(sig)));
        killProgram();
      } else {
        kill(pid_, sig);
        kill_at = Clock::now() + options.kill_after;
        kill_pending = true;
        if (options.notify)
          options.notify(fmt::format("passed {} on to the program; it is killed if still running in {} s",
                                     strsignal(sig), options.kill_after.count()));
      }
    }
    for (;;) {
      int status = 0;
      const pid_t reaped = waitpid(-1, &status, WNOHANG);
      if (reaped <= 0) break;
      if (reaped == pid_) {
        result = describeWaitStatus(status);
        exited_at = Clock::now();
      }
    }
    if (!result && kill_pending && Clock::now() > kill_at) {
      if (options.notify) options.notify("the program did not stop in time: killing it (SIGKILL)");
      killProgram();
      kill_pending = false;
    }
    if (result) {
      const bool busy = options.busy && options.busy();
      if (!busy) return *result;
      if (Clock::now() - *exited_at > options.linger) {
        if (options.notify)
          options.notify(fmt::format("the program exited but some of its processes were still sending after {} s; "
                                     "their recordings are closed as they are",
                                     std::chrono::duration_cast<std::chrono::seconds>(options.linger).count()));
        return *result;
      }
    }
  }
}

}  // namespace sawtooth::record
