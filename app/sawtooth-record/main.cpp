// sawtooth-record: runs a built-in LibTorch workload and writes what it allocated to a .sawtooth file.
//   sawtooth-record --list [--json]
//   sawtooth-record --workload NAME [--set key=value ...] [--device auto|cuda|cpu] [--stacks none|cpp]
//                   [--capture all|none] [--ranks N [--timeout S]] --out FILE.sawtooth
// Progress: JSON lines on stdout. Exit codes: 0 ok, 1 internal error, 2 bad arguments,
// 3 CUDA out of memory (recorded as an oom event, file closed), 4 interrupted by SIGINT/SIGTERM
// (the current batch is finished and the file closed).
// A distributed workload (data-parallel) runs as --ranks N child processes of this program, one
// per rank, each recording FILE.rankR.sawtooth; FILE.sawtooth is their merge, a run per rank.

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "workloads/capture/allocator_sources.h"
#include "workloads/capture/capture_session.h"
#include "app/sawtooth-record/distributed_recording.h"
#include "workloads/experiments/environment.h"
#include "workloads/experiments/workload.h"
#include "app/sawtooth-record/progress_json.h"

namespace {

namespace wl = sawtooth::workloads;
constexpr int kExitOk = 0, kExitInternal = 1, kExitUsage = 2, kExitOom = 3, kExitInterrupted = 4;

std::atomic<bool> g_stop{false};
void onSignal(int) { g_stop.store(true); }

nlohmann::json listJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : wl::allWorkloads()) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : w.spec.parameters) {
      nlohmann::json pj = {{"name", p.name},
                           {"type", p.type},
                           {"description", p.description},
                           {"default_gpu", p.gpu_default},
                           {"default_cpu", p.cpu_default}};
      if (!p.choices.empty()) pj["choices"] = p.choices;
      if (std::isfinite(p.min)) pj["min"] = p.min;
      if (std::isfinite(p.max)) pj["max"] = p.max;
      params.push_back(pj);
    }
    out.push_back({{"name", w.spec.name},
                   {"title", w.spec.title},
                   {"description", w.spec.description},
                   {"distributed", w.spec.distributed},
                   {"parameters", params}});
  }
  // What the app shows beside the Run button and in its About box.
  const bool cuda = wl::cudaAvailable();
  nlohmann::json environment = wl::environmentInfo(cuda, 0);
  return {{"workloads", out},
          {"cuda_available", cuda},
          {"cuda_devices", cuda ? wl::cudaDeviceCount() : 0},
          {"environment", environment}};
}

void printList() {
  for (const auto& w : wl::allWorkloads()) {
    fmt::print("{} — {}\n  {}\n", w.spec.name, w.spec.title, w.spec.description);
    for (const auto& p : w.spec.parameters)
      fmt::print("    {:<14} {:<6} gpu {:<8} cpu {:<8} {}\n", p.name, p.type, p.gpu_default, p.cpu_default, p.description);
    fmt::print("\n");
  }
}

sawtooth::Status applyCaptureSpec(const std::string& spec, sawtooth::capture::SessionOptions& o) {
  if (spec == "none") {
    o.allocator_tracker = o.memory_reporter = o.cupti = o.cupti_kernels = o.sampler = false;
    return sawtooth::Ok{};
  }
  std::stringstream parts(spec);
  std::string part;
  bool first = true;
  while (std::getline(parts, part, ',')) {
    if (first && part == "all") {
      first = false;
      continue;
    }
    first = false;
    if (part == "-tracker") o.allocator_tracker = false;
    else if (part == "-reporter") o.memory_reporter = false;
    else if (part == "-cupti") o.cupti = false;
    else if (part == "-kernels") o.cupti_kernels = false;
    else if (part == "-sampler") o.sampler = false;
    else
      return sawtooth::Error{fmt::format("--capture {}: '{}' is not one of all, none, -tracker, -reporter, -cupti, "
                                         "-kernels, -sampler", spec, part)};
  }
  return sawtooth::Ok{};
}

int usage(const std::string& message) {
  fmt::print(stderr, "sawtooth-record: {}\n", message);
  return kExitUsage;
}

std::string thisExecutable(const char* argv0) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : self.string();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sawtooth-record: run a built-in LibTorch workload and record its memory into a .sawtooth file"};
  bool list = false, as_json = false;
  std::string workload_name, device = "auto", stacks = "none", capture = "all", out;
  std::vector<std::string> sets;
  app.add_flag("--list", list, "list the workloads and their parameters");
  app.add_flag("--json", as_json, "with --list: print JSON");
  app.add_option("--workload", workload_name, "workload to run");
  app.add_option("--set", sets, "parameter override key=value (repeatable)");
  app.add_option("--device", device, "where to run")->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  app.add_option("--stacks", stacks, "capture C++ stacks of CUDA allocations (slower)")->check(CLI::IsMember({"none", "cpp"}));
  app.add_option("--capture", capture,
                 "capture sources: all, none, or all minus some: all,-tracker,-reporter,-cupti,-kernels,-sampler "
                 "(to measure each one's overhead)");
  app.add_option("--out", out, "output .sawtooth file");
  int ranks = 1, timeout_s = 3600, rank = -1, world_size = 0, store_port = 0;
  app.add_option("--ranks", ranks, "processes for a distributed workload, one per rank (one GPU each on CUDA)");
  app.add_option("--timeout", timeout_s, "with --ranks: seconds before unfinished ranks are stopped (default 3600)");
  // Set by the launcher on each rank process.
  app.add_option("--rank", rank)->group("");
  app.add_option("--world-size", world_size)->group("");
  app.add_option("--store-port", store_port)->group("");
  app.footer("Exit codes: 0 ok, 1 internal error, 2 bad arguments, 3 CUDA out of memory (recorded as an oom event),\n"
             "4 interrupted by SIGINT/SIGTERM (the current batch is written and the file closed).");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // app.exit prints the help, the version or the error; CLI11's own error codes (104-109) are ours: 2.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }

  if (list) {
    if (as_json) std::cout << listJson().dump(2) << "\n";
    else printList();
    return kExitOk;
  }
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
  const bool cuda_available = wl::cudaAvailable();
  if (device == "cuda" && !cuda_available) return usage("--device cuda: no CUDA device is available on this machine");
  const bool cuda = device == "cuda" || (device == "auto" && cuda_available);
  if (stacks == "cpp" && !cuda) return usage("--stacks cpp needs a CUDA device (stacks come from PyTorch's CUDA allocator)");
  auto params = wl::resolveParameters(workload->spec, cuda, overrides);
  if (!params) return usage(params.error().message);

  if (ranks < 1 || ranks > 64) return usage(fmt::format("--ranks {}: expected 1 to 64", ranks));
  if (timeout_s < 1) return usage(fmt::format("--timeout {}: expected a number of seconds, at least 1", timeout_s));
  const bool rank_process = rank >= 0;
  if (!workload->spec.distributed && (ranks != 1 || rank_process))
    return usage(fmt::format("--ranks {}: '{}' runs in one process; only distributed workloads (data-parallel) run "
                             "on several ranks", ranks, workload_name));
  if (rank_process && (world_size < 1 || rank >= world_size || store_port <= 0))
    return usage(fmt::format("--rank {} needs --world-size above it and --store-port (the launcher sets them)", rank));
  if (workload->spec.distributed && !rank_process) {
    if (cuda && ranks > wl::cudaDeviceCount())
      return usage(fmt::format("--ranks {}: one GPU per rank, and this machine has {} CUDA device(s); use --ranks {} "
                               "or fewer, or --device cpu", ranks, wl::cudaDeviceCount(), wl::cudaDeviceCount()));
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    sawtooth::record::JsonLinesProgress launcher_progress(stdout);
    sawtooth::record::DistributedRequest request;
    request.executable = thisExecutable(argv[0]);
    request.workload = workload->spec.name;
    request.cuda = cuda;
    request.rank_args = {"--workload", workload->spec.name, "--device", cuda ? "cuda" : "cpu", "--stacks", stacks,
                         "--capture", capture};
    for (const auto& [k, v] : params->all()) request.rank_args.insert(request.rank_args.end(), {"--set", k + "=" + v});
    request.parameters = params->all();
    request.out = out;
    request.ranks = ranks;
    request.timeout = std::chrono::seconds(timeout_s);
    return sawtooth::record::recordDistributed(request, launcher_progress, g_stop);
  }
  // A rank runs on the GPU of its own number.
  const int device_index = cuda && rank_process ? rank : 0;

  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  sawtooth::record::JsonLinesProgress progress(stdout);

  sawtooth::capture::SessionOptions options;
  options.out_path = out;
  options.cuda = cuda;
  options.cuda_device = device_index;
  options.stacks = stacks == "cpp" ? sawtooth::capture::StackMode::Cpp : sawtooth::capture::StackMode::None;
  if (sawtooth::Status st = applyCaptureSpec(capture, options); !st) return usage(st.error().message);
  auto session = sawtooth::capture::CaptureSession::start(options);
  if (!session) {
    fmt::print(stderr, "sawtooth-record: {}\n", session.error().message);
    return kExitInternal;
  }
  auto& s = **session;
  const auto env = wl::environmentInfo(cuda, device_index);
  for (const auto& [k, v] : env) s.setMeta(k, v);
  s.setMeta("workload", workload->spec.name);
  s.setMeta("parameters", nlohmann::json(params->all()).dump());
  s.setMeta("stacks", stacks);
  s.setMeta("capture", capture);
  nlohmann::json start = {{"workload", workload->spec.name}, {"device", cuda ? "cuda" : "cpu"}, {"parameters", params->all()}};
  if (env.count("device_name")) start["device_name"] = env.at("device_name");
  progress.event("start", fmt::format("{} on {}", workload->spec.name, cuda ? env.at("device_name") : "the CPU"), start.dump());

  wl::WorkloadContext ctx{s, *params, cuda, device_index, progress, g_stop, {}};
  if (rank_process) ctx.distributed = {rank, world_size, store_port};
  int code = kExitOk;
  try {
    workload->run(ctx);
  } catch (const wl::Interrupted&) {
    code = kExitInterrupted;
    s.setMeta("result", "interrupted");
    progress.event("interrupted", "stopped by a signal; the trace is closed and keeps everything recorded so far");
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
        state["allocated_bytes"] = std::to_string(at.allocated);
        state["device_free_bytes"] = std::to_string(at.device_free);
        state["device_total_bytes"] = std::to_string(at.device_total);
      }
      state.erase("reserved_bytes");  // only its current value is known, not the one at the failure
      for (const auto& [k, v] : state) {
        s.setMeta("oom." + k, v);
        extra[k] = v;
      }
    }
    progress.event("error", first_line, extra.dump());
    fmt::print(stderr, "sawtooth-record: {}: {}\n", oom ? "CUDA out of memory" : "error", first_line);
  }
  if (code == kExitOk) s.setMeta("result", "ok");
  if (sawtooth::Status st = s.finish(); !st) {
    fmt::print(stderr, "sawtooth-record: {}\n", st.error().message);
    return kExitInternal;
  }
  progress.event("finished", s.sourcesSummary(), nlohmann::json({{"out", out}, {"exit_code", code}}).dump());
  return code;
}
