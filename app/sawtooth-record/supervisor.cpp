#include "app/sawtooth-record/supervisor.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/io/native_writer.h"

namespace sawtooth::record {
namespace {

volatile sig_atomic_t g_child = 0;

void forwardToChild(int signal) {
  if (g_child > 0) ::kill(static_cast<pid_t>(g_child), signal);
}

[[noreturn]] void dieLike(int signal) {
  std::fflush(stdout);
  std::fflush(stderr);
  const rlimit no_core{0, 0};  // the supervisor's own core would show nothing
  setrlimit(RLIMIT_CORE, &no_core);
  std::signal(signal, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  std::raise(signal);
  std::_Exit(128 + signal);  // a signal whose default is to be ignored
}

}  // namespace

bool superviseRecording(const OutputClaim& output, JsonLinesProgress& progress) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the recording never outlives its supervisor
    if (::getppid() != parent) std::_Exit(1);
    return true;
  }
  g_child = child;
  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, forwardToChild);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  if (WIFEXITED(status)) std::exit(WEXITSTATUS(status));
  if (!WIFSIGNALED(status)) std::exit(1);
  const int signal = WTERMSIG(status);
  const std::string reason = incompleteReasonForSignal(signal);
  const std::string detail = fmt::format("the recording process {} by signal {} ({}); everything committed before is kept",
                                         reason == "crashed" ? "crashed" : "was killed", signal, strsignal(signal));
  const Status marked = markIncomplete(output.path(), reason, detail);
  nlohmann::json extra = {{"kind", reason}, {"signal", signal}, {"out", output.path()}};
  if (!marked) extra["mark_error"] = marked.error().message;
  progress.event("error", fmt::format("incomplete recording: {}: {}", reason, detail), extra.dump());
  std::fprintf(stderr, "sawtooth-record: %s: %s\n", reason.c_str(), detail.c_str());
  dieLike(signal);
}

}  // namespace sawtooth::record
