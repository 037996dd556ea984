#include "app/sawtooth-record/rank_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <functional>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/recording/exit_code.h"
#include "core/recording/rank_files.h"

namespace sawtooth::record {
namespace {

using Clock = std::chrono::steady_clock;
// sawtooth-record's exit codes that a failing rank passes on: out of memory, interrupted.
constexpr int kExitInternal = recording::code(recording::ExitCode::Internal),
              kExitOom = recording::code(recording::ExitCode::OutOfMemory),
              kExitInterrupted = recording::code(recording::ExitCode::Interrupted),
              kExitOutput = recording::code(recording::ExitCode::OutputUnwritable);
constexpr int kExitCannotStart = 127;

struct Child {
  int rank = 0;
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;
  std::string out_pending, err_pending;
  bool exited = false;
  bool killed = false;
  int status = 0;
};

bool succeeded(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

std::string describeExit(int rank, int status) {
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (code == kExitOom) return fmt::format("rank {} ran out of CUDA memory (exit {})", rank, code);
    if (code == kExitInterrupted) return fmt::format("rank {} was interrupted (exit {})", rank, code);
    if (code == kExitOutput) return fmt::format("rank {} could not write its trace (exit {}, its message is above)", rank, code);
    if (code == kExitCannotStart) return fmt::format("rank {} could not be started (exit {})", rank, code);
    return fmt::format("rank {} failed with exit code {} (its message is above)", rank, code);
  }
  if (WIFSIGNALED(status))
    return fmt::format("rank {} was killed by signal {} ({})", rank, WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("rank {} ended with wait status {}", rank, status);
}

// Between fork and exec only async-signal-safe calls: the launcher has threads (the store's).
pid_t spawn(std::vector<char*>& argv, int out_w, int err_w) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a rank never outlives a killed launcher
  if (getppid() != parent) _exit(kExitCannotStart);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  dup2(out_w, STDOUT_FILENO);
  dup2(err_w, STDERR_FILENO);
  execv(argv[0], argv.data());
  static const char message[] = "sawtooth-record: cannot start a rank process (execv failed)\n";
  [[maybe_unused]] ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
  _exit(kExitCannotStart);
}

void forwardProgressLine(JsonLinesProgress& progress, int rank, const std::string& line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) {
    progress.event("rank_output", line, nlohmann::json({{"rank", rank}}).dump());
    return;
  }
  std::string stage = j.contains("stage") && j["stage"].is_string() ? j["stage"].get<std::string>() : "";
  // start, error, interrupted and finished are the launcher's own lines, about all ranks; a
  // rank's come through as rank_start, rank_error, ...
  if (stage == "start" || stage == "finished" || stage == "error" || stage == "interrupted") stage = "rank_" + stage;
  const std::string message = j.contains("message") && j["message"].is_string() ? j["message"].get<std::string>() : "";
  j["rank"] = rank;
  progress.event(stage, message, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Reads what is there; returns false at end of file.
bool readAvailable(int fd, std::string& pending, const std::function<void(const std::string&)>& on_line) {
  char buffer[8192];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      pending.append(buffer, static_cast<size_t>(n));
      size_t start = 0;
      for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
        on_line(pending.substr(start, nl - start));
      pending.erase(0, start);
      continue;
    }
    if (n == 0) {
      if (!pending.empty()) on_line(pending);
      pending.clear();
      return false;
    }
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

RankLaunchResult runRanks(const RankLaunch& launch, JsonLinesProgress& progress, const std::atomic<bool>& stop) {
  RankLaunchResult result;
  std::vector<Child> children;
  std::optional<Clock::time_point> terminating_since;
  const auto terminateAll = [&] {
    if (terminating_since) return;
    terminating_since = Clock::now();
    for (const Child& c : children)
      if (!c.exited) kill(c.pid, SIGTERM);
  };
  const auto fail = [&](int code, std::string message, int rank, const char* kind) {
    if (result.exit_code != 0) return;  // the first failure is the one to report
    result.exit_code = code;
    result.message = std::move(message);
    result.failed_rank = rank;
    result.kind = kind;
    terminateAll();
  };

  for (int r = 0; r < launch.ranks && result.exit_code == 0; ++r) {
    const std::string path = recording::rankFilePath(launch.out, r);
    std::vector<std::string> args = {launch.executable};
    args.insert(args.end(), launch.args.begin(), launch.args.end());
    for (const std::string& a : {std::string("--out"), path, std::string("--rank"), std::to_string(r),
                                 std::string("--world-size"), std::to_string(launch.ranks), std::string("--store-port"),
                                 std::to_string(launch.store_port)})
      args.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) {
      fail(kExitInternal, fmt::format("cannot create a pipe for rank {}: {}", r, std::strerror(errno)), r, "internal");
      break;
    }
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
      close(out_pipe[0]);
      close(out_pipe[1]);
      fail(kExitInternal, fmt::format("cannot create a pipe for rank {}: {}", r, std::strerror(errno)), r, "internal");
      break;
    }
    const pid_t pid = spawn(argv, out_pipe[1], err_pipe[1]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (pid < 0) {
      close(out_pipe[0]);
      close(err_pipe[0]);
      fail(kExitInternal, fmt::format("cannot start rank {}: {}", r, std::strerror(errno)), r, "internal");
      break;
    }
    for (int fd : {out_pipe[0], err_pipe[0]}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    Child c;
    c.rank = r;
    c.pid = pid;
    c.out_fd = out_pipe[0];
    c.err_fd = err_pipe[0];
    children.push_back(std::move(c));
    result.rank_files.push_back(path);
    progress.event("rank_started", fmt::format("rank {} of {} started (pid {})", r, launch.ranks, pid),
                   nlohmann::json({{"rank", r}, {"pid", pid}, {"out", path}}).dump());
  }

  const auto deadline = Clock::now() + launch.timeout;
  std::optional<Clock::time_point> all_exited_since;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<Child*, bool>> owners;  // the child, and whether the fd is its stderr
    for (Child& c : children) {
      if (c.out_fd >= 0) fds.push_back({c.out_fd, POLLIN, 0}), owners.emplace_back(&c, false);
      if (c.err_fd >= 0) fds.push_back({c.err_fd, POLLIN, 0}), owners.emplace_back(&c, true);
    }
    const bool all_exited = std::all_of(children.begin(), children.end(), [](const Child& c) { return c.exited; });
    if (all_exited && fds.empty()) break;
    if (all_exited && !all_exited_since) all_exited_since = Clock::now();
    // Something the ranks started may still hold their pipes: stop reading a while after they exit.
    if (all_exited_since && Clock::now() - *all_exited_since > std::chrono::seconds(2)) {
      for (Child& c : children) closeFd(c.out_fd), closeFd(c.err_fd);
      break;
    }

    poll(fds.data(), fds.size(), 100);
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Child& c = *owners[i].first;
      const bool is_err = owners[i].second;
      const bool open = is_err ? readAvailable(c.err_fd, c.err_pending,
                                               [&](const std::string& line) {
                                                 std::fprintf(stderr, "[rank %d] %s\n", c.rank, line.c_str());
                                               })
                               : readAvailable(c.out_fd, c.out_pending, [&](const std::string& line) {
                                   forwardProgressLine(progress, c.rank, line);
                                 });
      if (!open) closeFd(is_err ? c.err_fd : c.out_fd);
    }

    for (Child& c : children) {
      if (c.exited) continue;
      int status = 0;
      if (waitpid(c.pid, &status, WNOHANG) != c.pid) continue;
      c.exited = true;
      c.status = status;
      if (succeeded(status)) continue;
      const int code = WIFEXITED(status) && (WEXITSTATUS(status) == kExitOom || WEXITSTATUS(status) == kExitInterrupted ||
                                             WEXITSTATUS(status) == kExitOutput)
                           ? WEXITSTATUS(status)
                           : kExitInternal;
      fail(code, describeExit(c.rank, status) + "; stopped the other ranks", c.rank, "rank_failed");
    }
    const bool running = std::any_of(children.begin(), children.end(), [](const Child& c) { return !c.exited; });
    if (running && stop.load())
      fail(kExitInterrupted, "interrupted: stopped every rank (each closes its trace)", -1, "interrupted");
    if (running && Clock::now() > deadline)
      fail(kExitInternal,
           fmt::format("the ranks did not finish within {} s (--timeout): stopped them", launch.timeout.count()), -1,
           "timeout");
    if (terminating_since && Clock::now() - *terminating_since > launch.kill_grace)
      for (Child& c : children)
        if (!c.exited && !c.killed) {
          kill(c.pid, SIGKILL);
          c.killed = true;
        }
  }
  fflush(stderr);
  return result;
}

}  // namespace sawtooth::record
