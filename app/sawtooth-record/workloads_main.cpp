// sawtooth-workloads: runs a built-in LibTorch workload and writes what it allocated to a .sawtooth
// file. sawtooth-record (LibTorch-free) starts it with exec for every command line without `--`.
//   sawtooth-record --list [--json]
//   sawtooth-record --workload NAME [--set key=value ...] [--device auto|cuda|cpu] [--stacks none|cpp]
//                   [--capture all|none|...] [--steps A:B] [--window-events N] [--sample-interval MS]
//                   [--ranks N [--timeout S]] --out FILE.sawtooth [--force]
// The contract with the app is core/recording: the --list --json document, the parameter, device
// and rank checks, the progress lines on stdout and the exit codes: 0 ok, 1 internal error, 2 bad arguments,
// 3 CUDA out of memory (recorded as an oom event, file closed), 4 interrupted by SIGINT, SIGTERM
// or SIGHUP (the current batch is finished and the file closed, marked incomplete), 5 the output
// cannot be written (exists without --force, a directory, being written by another recording,
// or the disk is full: capture stops at the first failed write, the file keeps what was
// committed). A recorder killed or crashed dies the same way (supervisor.h), its file marked.
// A distributed workload (data-parallel) runs as --ranks N child processes of this program, one
// per rank, each recording FILE.rankR.sawtooth; FILE.sawtooth is their merge, a run per rank.

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/recording/exit_code.h"
#include "core/recording/rank_files.h"
#include "core/recording/workload_list.h"
#include "app/sawtooth-record/capture_options.h"
#include "app/sawtooth-record/distributed_recording.h"
#include "app/sawtooth-record/progress_json.h"
#include "app/sawtooth-record/rank_launcher.h"
#include "app/sawtooth-record/supervisor.h"
#include "core/io/native_writer.h"
#include "capture/torch/allocator_sources.h"
#include "capture/torch/capture_session.h"
#include "workloads/experiments/environment.h"
#include "workloads/experiments/workload.h"
#include "app/sawtooth-record/program/workload_options.h"

namespace {

namespace wl = sawtooth::workloads;
namespace rec = sawtooth::recording;
constexpr int kExitOk = rec::code(rec::ExitCode::Ok), kExitInternal = rec::code(rec::ExitCode::Internal),
              kExitUsage = rec::code(rec::ExitCode::Usage), kExitOom = rec::code(rec::ExitCode::OutOfMemory),
              kExitInterrupted = rec::code(rec::ExitCode::Interrupted),
              kExitOutput = rec::code(rec::ExitCode::OutputUnwritable);

std::atomic<bool> g_stop{false};
volatile sig_atomic_t g_stop_signal = 0;
void onSignal(int signal) {
  g_stop_signal = signal;
  g_stop.store(true);
}

// The --list --json document (core/recording/workload_list.h), which the app parses with the same code.
std::string listJson() {
  sawtooth::recording::WorkloadList list;
  for (const auto& w : wl::allWorkloads()) list.workloads.push_back(w.spec);
  // What the app shows beside the Run button and in its About box.
  list.cuda_available = wl::cudaAvailable();
  list.cuda_devices = list.cuda_available ? wl::cudaDeviceCount() : 0;
  list.environment = wl::environmentInfo(list.cuda_available, 0);
  return sawtooth::recording::toJson(list);
}

void printList() {
  for (const auto& w : wl::allWorkloads()) {
    fmt::print("{} — {}\n  {}\n", w.spec.name, w.spec.title, w.spec.description);
    for (const auto& p : w.spec.parameters)
      fmt::print("    {:<14} {:<6} gpu {:<8} cpu {:<8} {}\n", p.name, p.type, p.gpu_default, p.cpu_default, p.description);
    fmt::print("\n");
  }
}

// The device, the rank count (unless nullopt) and the parameters, checked by core/recording's rules.
// It asks CUDA, so the single-process path calls it only in the recording process.
struct ResolvedRun {
  bool cuda = false;
  sawtooth::recording::Parameters params;
};
sawtooth::Result<ResolvedRun> resolveRun(const sawtooth::recording::WorkloadSpec& spec, const std::string& device,
                                         std::optional<int> ranks,
                                         const std::vector<std::pair<std::string, std::string>>& overrides) {
  const auto cuda = rec::resolveDevice(device, wl::cudaAvailable());
  if (!cuda) return cuda.error();
  if (ranks)
    if (sawtooth::Status st = rec::checkRanks(spec, *ranks, *cuda, *cuda ? wl::cudaDeviceCount() : 0); !st)
      return st.error();
  auto params = rec::resolveParameters(spec, *cuda, overrides);
  if (!params) return params.error();
  return ResolvedRun{*cuda, std::move(*params)};
}

int usage(const std::string& message) {
  fmt::print(stderr, "{}{}\n", rec::kMessagePrefix, message);
  return kExitUsage;
}

int outputRefused(sawtooth::record::JsonLinesProgress& progress, const std::string& message) {
  progress.event("error", message, nlohmann::json({{"kind", "output"}}).dump());
  fmt::print(stderr, "{}{}\n", rec::kMessagePrefix, message);
  return kExitOutput;
}

std::string thisExecutable(const char* argv0) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : self.string();
}

std::string signalName(int signal) { return signal == SIGHUP ? "SIGHUP" : signal == SIGINT ? "SIGINT" : "SIGTERM"; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sawtooth-workloads (started by sawtooth-record): run a built-in LibTorch workload and record its "
               "memory into a .sawtooth file"};
  sawtooth::record::WorkloadOptions o;
  sawtooth::record::addWorkloadOptions(app, o);
  app.footer(sawtooth::record::kExitCodesHelp);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // app.exit prints the help, the version or the error; CLI11's own error codes (104-109) are ours: 2.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  const bool list = o.list, as_json = o.as_json, force = o.force;
  const std::string &workload_name = o.workload, &device = o.device, &stacks = o.stacks, &capture = o.capture,
                    &out = o.out, &steps = o.steps;
  const std::vector<std::string>& sets = o.sets;
  const int64_t window_events = o.window_events, sample_interval = o.sample_interval;
  const int ranks = o.ranks, timeout_s = o.timeout_s, rank = o.rank, world_size = o.world_size,
            store_port = o.store_port;

  if (list) {
    if (as_json) std::cout << listJson() << "\n";
    else printList();
    return kExitOk;
  }
  // Everything that needs no GPU is checked here, before the recording process starts.
  if (workload_name.empty()) return usage("choose a workload with --workload NAME (see --list)");
  const wl::Workload* workload = wl::findWorkload(workload_name);
  if (!workload) return usage(fmt::format("no workload '{}' (see --list)", workload_name));
  if (out.empty()) return usage("--out FILE.sawtooth is required");

  std::vector<std::pair<std::string, std::string>> overrides;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) return usage(fmt::format("--set {}: expected key=value", s));
    overrides.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  sawtooth::capture::SessionOptions options;
  options.stacks = stacks == "cpp" ? sawtooth::capture::StackMode::Cpp : sawtooth::capture::StackMode::None;
  if (sawtooth::Status st = sawtooth::record::applyCaptureSpec(capture, options); !st) return usage(st.error().message);
  if (!steps.empty())
    if (sawtooth::Status st = sawtooth::capture::applyStepRange(steps, options.window); !st) return usage(st.error().message);
  if (window_events != 0)
    if (sawtooth::Status st = sawtooth::capture::applyWindowEvents(window_events, options.window); !st)
      return usage(st.error().message);
  if (sawtooth::Status st = sawtooth::record::applySampleInterval(sample_interval, options); !st)
    return usage(st.error().message);

  const bool rank_process = rank >= 0;
  if (timeout_s < 1) return usage(fmt::format("--timeout {}: expected a number of seconds, at least 1", timeout_s));
  if (!workload->spec.distributed && rank_process)
    return usage(fmt::format("--rank {}: '{}' runs in one process; only distributed workloads (data-parallel) run "
                             "on several ranks", rank, workload_name));
  if (rank_process && (world_size < 1 || rank >= world_size || store_port <= 0))
    return usage(fmt::format("--rank {} needs --world-size above it and --store-port (the launcher sets them)", rank));

  // A file being written is never replaced, nor is a directory; a write to a full disk fails
  // with EFBIG instead of killing the recorder.
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  sawtooth::record::JsonLinesProgress progress(stdout);
  const auto existing = force ? sawtooth::OutputClaim::Existing::Replace : sawtooth::OutputClaim::Existing::Refuse;

  if (workload->spec.distributed && !rank_process) {
    // The launcher: each rank claims its own file; the merge writes FILE at the end.
    for (int r = 0; r <= ranks; ++r) {
      const std::string path = r < ranks ? sawtooth::recording::rankFilePath(out, r) : out;
      if (sawtooth::Status st = sawtooth::checkOutputPath(path, existing); !st)
        return outputRefused(progress, st.error().message);
    }
    // The launcher starts its ranks with exec, so it may ask CUDA itself.
    auto run = resolveRun(workload->spec, device, ranks, overrides);
    if (!run) return usage(run.error().message);
    const bool cuda = run->cuda;
    const auto& params = run->params;
    for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, onSignal);
    sawtooth::record::DistributedRequest request;
    request.executable = thisExecutable(argv[0]);
    request.workload = workload->spec.name;
    request.cuda = cuda;
    request.rank_args = {"--workload", workload->spec.name, "--device", cuda ? "cuda" : "cpu", "--stacks", stacks,
                         "--capture", capture, "--sample-interval", std::to_string(sample_interval)};
    if (!steps.empty()) request.rank_args.insert(request.rank_args.end(), {"--steps", steps});
    if (window_events > 0) request.rank_args.insert(request.rank_args.end(), {"--window-events", std::to_string(window_events)});
    if (force) request.rank_args.push_back("--force");
    for (const auto& [k, v] : params.all()) request.rank_args.insert(request.rank_args.end(), {"--set", k + "=" + v});
    request.parameters = params.all();
    request.out = out;
    request.ranks = ranks;
    request.timeout = std::chrono::seconds(timeout_s);
    return sawtooth::record::recordDistributed(request, progress, g_stop);
  }

  auto claim = sawtooth::OutputClaim::claim(out, existing);
  if (!claim) return outputRefused(progress, claim.error().message);
  if (stacks == "cpp")
    if (sawtooth::Status st = sawtooth::checkOutputPath(out + ".snapshot.pickle", existing); !st)
      return outputRefused(progress, st.error().message);
  // From here the recording runs in a child process watched by this one (no CUDA before this).
  sawtooth::record::superviseRecording(*claim, progress);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, onSignal);
  // A recording that cannot start leaves the path as it was.
  const auto refuse = [&](const std::string& message) {
    claim->abandon();
    return usage(message);
  };

  // A rank process was checked by its launcher.
  auto run = resolveRun(workload->spec, device, rank_process ? std::optional<int>() : ranks, overrides);
  if (!run) return refuse(run.error().message);
  const bool cuda = run->cuda;
  if (stacks == "cpp" && !cuda) return refuse("--stacks cpp needs a CUDA device (stacks come from PyTorch's CUDA allocator)");
  const auto& params = run->params;
  // A rank runs on the GPU of its own number.
  const int device_index = cuda && rank_process ? rank : 0;

  options.cuda = cuda;
  options.cuda_device = device_index;
  options.stop_on_write_failure = &g_stop;  // a full disk stops the workload at its next step
  auto session = sawtooth::capture::CaptureSession::start(options, std::move(*claim));
  if (!session) {
    fmt::print(stderr, "{}{}\n", rec::kMessagePrefix, session.error().message);
    return kExitInternal;
  }
  auto& s = **session;
  const auto env = wl::environmentInfo(cuda, device_index);
  for (const auto& [k, v] : env) s.setMeta(k, v);
  // Data-parallel divides the cores among its ranks itself (its runs' cpu_threads).
  if (!cuda && !workload->spec.distributed) s.setMeta("cpu_threads", std::to_string(wl::leaveACoreToTheCapture(cuda)));
  s.setMeta("workload", workload->spec.name);
  s.setMeta("parameters", nlohmann::json(params.all()).dump());
  s.setMeta("stacks", stacks);
  s.setMeta("capture", capture);
  nlohmann::json start = {{"workload", workload->spec.name}, {"device", cuda ? "cuda" : "cpu"},
                          {"parameters", params.all()}, {"pid", getpid()}, {"out", out}};
  if (env.count("device_name")) start["device_name"] = env.at("device_name");
  progress.event("start", fmt::format("{} on {}", workload->spec.name, cuda ? env.at("device_name") : "the CPU"), start.dump());

  wl::WorkloadContext ctx{s, params, cuda, device_index, progress, g_stop, {}};
  if (rank_process) ctx.distributed = {rank, world_size, store_port};
  int code = kExitOk;
  std::string incomplete, detail;
  try {
    workload->run(ctx);
  } catch (const wl::Interrupted&) {
    if (!s.writeFailed()) {
      code = kExitInterrupted;
      incomplete = "interrupted";
      detail = fmt::format("stopped by {} at step {}", signalName(g_stop_signal), s.stepsBegun());
      s.setMeta("result", "interrupted");
      progress.event("interrupted", "stopped by a signal; the trace is closed and keeps everything recorded so far");
    }
  } catch (const std::exception& e) {
    const bool oom = cuda && wl::isOutOfMemory(e);
    code = oom ? kExitOom : kExitInternal;
    const std::string first_line = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
    s.setMeta("result", oom ? "out_of_memory" : "error");
    s.setMeta("error", e.what());
    nlohmann::json extra = {{"kind", oom ? "oom" : "internal"}};
    if (oom) {
      // The state at the failure, as the allocator's OOM observer saw it (by now the workload's
      // tensors are gone), then the allocator's peak statistics.
      const auto at = sawtooth::capture::lastOutOfMemory();
      std::map<std::string, std::string> state = wl::allocatorState(device_index);
      if (at.seen) {
        state["requested_bytes"] = std::to_string(at.requested);
        state["allocated_bytes"] = std::to_string(at.allocated);
        state["device_free_bytes"] = std::to_string(at.device_free);
        state["device_limit_bytes"] = std::to_string(at.limit);
      }
      state.erase("reserved_bytes");  // only its current value is known, not the one at the failure
      for (const auto& [k, v] : state) {
        s.setMeta("oom." + k, v);
        extra[k] = v;
      }
    }
    progress.event("error", first_line, extra.dump());
    fmt::print(stderr, "{}{}: {}\n", rec::kMessagePrefix, oom ? "CUDA out of memory" : "error", first_line);
  }
  if (code == kExitOk && !s.writeFailed()) s.setMeta("result", "ok");
  const sawtooth::Status finished = s.finish(incomplete, detail);
  if (s.writeFailed()) {
    // Capture stopped at the first failed write; the file holds every batch committed before.
    const std::string why = sawtooth::diskFullReason(s.writeErrno());
    const std::string message = fmt::format("{}: recording stopped: {}", why.empty() ? "write error" : why, s.writeError());
    progress.event("error", message,
                   nlohmann::json({{"kind", why.empty() ? "write_error" : "disk_full"}, {"out", out},
                                   {"errno", s.writeErrno()}})
                       .dump());
    fmt::print(stderr, "{}{}\n", rec::kMessagePrefix, message);
    return kExitOutput;
  }
  if (!finished) {
    fmt::print(stderr, "{}{}\n", rec::kMessagePrefix, finished.error().message);
    return kExitInternal;
  }
  progress.event("finished", s.sourcesSummary(),
                 nlohmann::json({{"out", out}, {"exit_code", code}, {"complete", incomplete.empty()}}).dump());
  return code;
}
