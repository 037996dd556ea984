#include "app/sawtooth-record/program/program_main.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/recording/wire.h"
#include "app/sawtooth-record/program/output_paths.h"
#include "app/sawtooth-record/program/posix_files.h"
#include "app/sawtooth-record/program/program_launcher.h"
#include "app/sawtooth-record/program/recording_watcher.h"
#include "capture/ingest/shim_server.h"
#include "app/sawtooth-record/program/support_files.h"
#include "core/io/native_format.h"
#include "core/io/trace_merge.h"
#include "capture/writer/capture_window.h"

namespace sawtooth::record {
namespace {

// The environment the recording notes down (it changes what the program allocates).
constexpr const char* kEnvironmentOfInterest[] = {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "CUDA_VISIBLE_DEVICES",
                                                  "CUDA_LAUNCH_BLOCKING", "OMP_NUM_THREADS"};

// What the user reads on stderr, and JSON lines for the app when --progress names a file.
class Reporter {
 public:
  Reporter(bool quiet, std::FILE* json) : quiet_(quiet), json_(json) {}
  ~Reporter() {
    if (json_) std::fclose(json_);
  }
  void say(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!quiet_) std::fprintf(stderr, "sawtooth-record: %s\n", message.c_str());
  }
  void event(const std::string& stage, const std::string& message, nlohmann::json extra = nlohmann::json::object()) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!json_) return;
    extra["stage"] = stage;
    extra["message"] = message;
    std::fprintf(json_, "%s\n", extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    std::fflush(json_);
  }

 private:
  std::mutex mutex_;
  bool quiet_;
  std::FILE* json_;
};

// "python train.py --lr 3e-4" for messages: the command's name without its folder, then its arguments.
std::string shortCommand(const std::vector<std::string>& command) {
  std::string out = posix::fileName(command.front());
  for (size_t i = 1; i < command.size() && out.size() < 100; ++i) out += " " + command[i];
  return out.size() > 100 ? out.substr(0, 97) + "..." : out;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "sawtooth-record: %s\n", message.c_str());
  return kExitRecorderFailed;
}

// Rank traces into one file, a run per rank, as the data-parallel workload's are.
Status mergeRanks(const std::vector<RecordedProcess>& ranks, const std::string& out) {
  std::vector<RankTrace> traces;
  for (const RecordedProcess& p : ranks) {
    auto trace = readNative(p.path);
    if (!trace) return Error{fmt::format("{}: {}", p.path, trace.error().message)};
    traces.push_back({p.rank, std::move(*trace)});
  }
  auto merged = mergeRankTraces(traces);
  if (!merged) return merged.error();
  return writeNative(*merged, out);
}

}  // namespace

std::string rungSpecProblem(const std::string& spec) {
  if (spec == "bf16" || spec == "compile") return {};
  std::string_view rest(spec);
  if (!rest.starts_with("checkpoint")) return "choose bf16, checkpoint[:every=N][:reentrant] or compile";
  rest.remove_prefix(10);
  bool every = false, reentrant = false;
  while (!rest.empty()) {
    if (rest.front() != ':') return "checkpoint takes :every=N and :reentrant";
    rest.remove_prefix(1);
    const size_t end = std::min(rest.find(':'), rest.size());
    const std::string_view part = rest.substr(0, end);
    rest.remove_prefix(end);
    if (part == "reentrant" && !reentrant) {
      reentrant = true;
    } else if (part.starts_with("every=") && !every && part.size() > 6 &&
               part.find_first_not_of("0123456789", 6) == std::string_view::npos && part.substr(6) != "0" &&
               part.size() < 12) {
      every = true;
    } else {
      return fmt::format("'{}' is neither every=N (N >= 1) nor reentrant", part);
    }
  }
  return {};
}

void addProgramOptions(CLI::App& app, ProgramOptions& o) {
  app.add_option("--out", o.out, "output .sawtooth file (default: named after the command, in this folder)");
  app.add_flag("--force", o.force, "replace an existing output file");
  app.add_option("--stacks", o.stacks, "Python stacks of each allocation")->check(CLI::IsMember({"python", "none"}));
  app.add_option("--cpu", o.cpu, "CPU allocations: auto (until the process uses CUDA; the profiler's path, --shim portable, not at all where an "
                 "NVIDIA driver is and CUPTI is recorded), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--shim", o.shim,
                 "PyTorch recording inside Python programs: auto (native where it loads, else portable), native "
                 "(our tracker library, same torch build only: the CUDA allocator's trace, and c10's CPU memory "
                 "reports with Python stacks), portable (PyTorch's public APIs: the history for CUDA, the "
                 "profiler's memory events for the CPU, without stacks), off (CUDA not recorded)")
      ->check(CLI::IsMember({"auto", "native", "portable", "off"}));
  app.add_option("--modules", o.modules,
                 "which torch.nn.Module allocated each byte (a wrapper of Module.__call__, no module hooks): off (the "
                 "default: it cost 0.4 to 1 % of a GPT-2 step over PyTorch's own history with Python stacks, 0.6 to "
                 "1.7 % with --stacks none), on")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--cupti", o.cupti, "driver allocations, kernels and device memory through CUPTI injection")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--kernels", o.kernels,
                 "kernel records through CUPTI: off (the default) keeps driver allocations, NVTX ranges and "
                 "device memory; on costs the program CUPTI's tracing of each launch (+4 to +16 % step time on GPT-2)")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--sample-interval", o.sample_interval_ms, "device memory samples, milliseconds")->check(CLI::Range(5, 60'000));
  app.add_option("--max-entries", o.max_entries, "PyTorch history entries kept between deliveries (portable shim)")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000'000}));
  app.add_option("--steps", o.steps,
                 "keep only steps A to B-1 (a step ends when optimizer.step() returns; counted from 0, A: or :B "
                 "open-ended); what is alive at A is the file's baseline");
  app.add_option("--window-events", o.window_events,
                 "keep only the last N events of each process (older ones leave the file as it goes; what they "
                 "left alive becomes the baseline)");
  app.add_option("--rung", o.rung,
                 "apply a rung of the ladder to the unmodified Python program and record it: bf16 (autocast around "
                 "the model's forward), checkpoint[:every=N][:reentrant] (torch.utils.checkpoint around every N-th "
                 "block of its repeated ModuleList), compile (the model compiled in place); a program it cannot be "
                 "applied to is told so and runs unchanged (sawtooth-trace ladder --measured FILE puts it beside "
                 "the prediction)")
      ->check([](const std::string& spec) { return rungSpecProblem(spec); });
  app.add_option("--progress", o.progress, "append JSON progress lines to this file (or FIFO, or /dev/fd/N)");
  app.add_flag("--quiet", o.quiet, "no messages of sawtooth-record's own on stderr");
  app.add_option("--kill-after", o.kill_after_s, "seconds between passing a signal on and SIGKILL")->check(CLI::Range(1, 86'400));
  app.add_option("--linger", o.linger_s, "seconds to wait for the program's processes to deliver after it exits")
      ->check(CLI::Range(0, 3'600));
  app.add_flag("--keep-running", o.keep_running,
               "the program keeps running if sawtooth-record is killed (default: it is killed with it)");
}

bool isProgramRecording(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") return true;
  return false;
}

int recordProgramMain(int argc, char** argv) {
  ProgramOptions o;
  int separator = 1;
  while (separator < argc && std::string_view(argv[separator]) != "--") ++separator;
  for (int i = separator + 1; i < argc; ++i) o.command.emplace_back(argv[i]);

  CLI::App app{"sawtooth-record [options] -- COMMAND [ARGS...]: record the memory of any program"};
  addProgramOptions(app, o);
  try {
    app.parse(separator, argv);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", combinedHelp().c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (see sawtooth-record --help)");
  }
  if (o.command.empty()) return fail("no command after --: sawtooth-record [options] -- COMMAND [ARGS...]");
  capture::WindowOptions window;
  if (!o.steps.empty())
    if (Status st = capture::applyStepRange(o.steps, window); !st) return fail(st.error().message);
  if (o.window_events != 0)
    if (Status st = capture::applyWindowEvents(o.window_events, window); !st) return fail(st.error().message);

  // A watcher that closes the files if this process is killed: before any thread starts and before
  // anything is claimed (recording_watcher.h).
  RecordingWatcher watcher = RecordingWatcher::start({o.progress, o.keep_running});

  const std::string cwd = posix::currentDirectory();
  if (o.out.empty()) o.out = defaultOutPath(o.command, std::time(nullptr));
  auto claimed = OutputPaths::claimFirst(o.out, o.force);
  if (!claimed) return fail(claimed.error().message);
  OutputPaths& paths = **claimed;

  std::FILE* progress_file = nullptr;
  if (!o.progress.empty() && !(progress_file = std::fopen(o.progress.c_str(), "a"))) {
    paths.abandonUnused();
    return fail(fmt::format("--progress {}: cannot open it for writing", o.progress));
  }
  Reporter reporter(o.quiet, progress_file);

  const SupportFiles support = findSupportFiles();
  ProgramLauncher launcher;  // blocks the handled signals before any thread starts

  RecordingContext context;
  context.t0_ns = capture::clockNs();
  context.command = o.command;
  context.cwd = cwd;
  context.window = window;
  context.meta = {{"stacks", o.stacks},
                  {"cpu_allocations", o.cpu},
                  {"shim", o.shim},
                  {"modules", o.modules},
                  {"cupti", o.cupti},
                  {"kernels", o.cupti == "on" ? o.kernels : "off"},
                  {"recorder_version", SAWTOOTH_VERSION}};
  if (!o.rung.empty()) context.meta["rung_requested"] = o.rung;  // "rung" itself once the shim applied it
  for (const char* key : kEnvironmentOfInterest)
    if (const char* v = std::getenv(key)) context.meta[std::string("env.") + key] = v;
  // Which processes connected, and their parents (read while they are alive): a child of a recorded
  // process records into FILE.pidP, never into the file asked for; so does any other process once the
  // program's own connected (it does at its start, before it starts any): a grandchild through a
  // shell (os.system) too.
  std::mutex tree_mutex;
  std::map<int, int> parent_of;
  std::atomic<int> program_pid{0};  // once started
  context.claim_path = [&paths, &tree_mutex, &parent_of, &program_pid](int pid, int rank) {
    bool child = false;
    {
      std::lock_guard<std::mutex> lock(tree_mutex);
      auto it = parent_of.find(pid);
      child = it != parent_of.end() && parent_of.count(it->second) != 0;
      const int program = program_pid.load();
      if (program > 0 && pid != program && parent_of.count(program) != 0) child = true;
    }
    return paths.claim(pid, rank, child);
  };
  context.notify = [&reporter](const std::string& level, const std::string& message) {
    reporter.say(message);
    reporter.event("notice", message, {{"level", level}});
  };
  context.process_connected = [&watcher, &tree_mutex, &parent_of](int pid) {
    const int parent = posix::parentPid(pid);
    {
      std::lock_guard<std::mutex> lock(tree_mutex);
      parent_of[pid] = parent;
    }
    watcher.announceProcess(pid);
  };
  context.file_started = [&reporter, &watcher](int pid, int rank, const std::string& path) {
    watcher.announceFile(path);
    reporter.event("recording", fmt::format("pid {} records into {}", pid, path),
                   {{"pid", pid}, {"rank", rank}, {"path", path}});
  };

  auto server = ShimServer::start(context);
  if (!server) {
    paths.abandonUnused();
    return fail(server.error().message);
  }
  watcher.announceFolder((*server)->folder());

  std::map<std::string, std::string> env;
  env[wire::kSocketEnv] = (*server)->socketPath();
  nlohmann::json shim_options = {{"stacks", o.stacks},          {"cpu", o.cpu},
                                 {"mode", o.shim},              {"max_entries", o.max_entries},
                                 {"sample_interval_ms", o.sample_interval_ms}, {"kernels", o.kernels == "on"},
                                 {"modules", o.modules}};
  if (!o.rung.empty()) {
    shim_options["rung"] = o.rung;
    if (o.shim == "off") reporter.say("--rung needs the Python shim: with --shim off the program runs unchanged");
  }
  env["SAWTOOTH_OPTIONS"] = shim_options.dump();
  if (o.shim != "off") {
    if (support.python_dir.empty()) {
      reporter.say(fmt::format("the Python shim is missing ({}): Python programs are recorded without PyTorch's "
                               "allocator events", support.missing));
    } else {
      const char* old = std::getenv("PYTHONPATH");
      env["PYTHONPATH"] = support.python_dir + (old && *old ? ":" + std::string(old) : std::string());
      if (!support.tracker_library.empty()) env["SAWTOOTH_TRACKER_LIBRARY"] = support.tracker_library;
      if (!support.tracker_torch.empty()) env["SAWTOOTH_TRACKER_TORCH"] = support.tracker_torch;
    }
  }
  if (o.cupti == "on") {
    if (const char* user = std::getenv("CUDA_INJECTION64_PATH"); user && *user) {
      reporter.say(fmt::format("CUDA_INJECTION64_PATH is already set ({}): it is kept, so driver allocations, kernels "
                               "and device samples are not recorded", user));
    } else if (support.cupti_library.empty()) {
      reporter.say("the CUPTI injection library is missing: driver allocations, kernels and device samples are not recorded");
    } else {
      env["CUDA_INJECTION64_PATH"] = support.cupti_library;
      env["SAWTOOTH_CUPTI_LIBRARY"] = support.cupti_library;  // the shim asks it to make room for Kineto
      // Kineto (CUDA >= 12.6) calls cuptiFinalize when a profiling session ends, which detaches every
      // CUPTI client in the process, ours included (and crashed a GPT-2 script on the H200).
      if (const char* teardown = std::getenv("TEARDOWN_CUPTI"); teardown && std::string(teardown) != "0")
        reporter.say("TEARDOWN_CUPTI=0 for the recording: Kineto's CUPTI teardown would detach the recorder's CUPTI");
      env["TEARDOWN_CUPTI"] = "0";
    }
  }

  reporter.say(fmt::format("recording `{}` into {}", shortCommand(o.command), o.out));
  reporter.event("start", fmt::format("recording {}", shortCommand(o.command)),
                 {{"command", o.command}, {"out", o.out}, {"cwd", cwd}});
  if (auto failure = launcher.start(o.command, env, !o.keep_running)) {
    (*server)->stop({});
    paths.abandonUnused();
    reporter.event("finished", failure->message, {{"exit_code", failure->exit_code}, {"out", ""}});
    std::fprintf(stderr, "sawtooth-record: %s\n", failure->message.c_str());
    return failure->exit_code;
  }
  program_pid.store(launcher.pid());
  reporter.event("program_started", fmt::format("pid {}", launcher.pid()), {{"pid", launcher.pid()}});

  ProgramLauncher::WaitOptions wait;
  wait.kill_after = std::chrono::seconds(o.kill_after_s);
  wait.linger = std::chrono::seconds(o.linger_s);
  wait.busy = [s = server->get()] { return s->openConnections() > 0; };
  wait.notify = [&reporter](const std::string& m) { reporter.say(m); };
  const ProgramExit exit = launcher.wait(wait);
  reporter.event("program_exit", exit.description, {{"exit_code", exit.exit_code}, {"signalled", exit.signalled}});

  const int exit_signal = exit.signalled ? exit.exit_code - 128 : 0;
  std::vector<RecordedProcess> processes = (*server)->stop({{launcher.pid(), {exit.description, exit_signal}}});
  const bool had_connections = (*server)->connectionsMade() > 0;
  server->reset();

  // One file per recorded process; ranks are merged into one, a run per rank.
  bool recording_failed = false;
  std::vector<RecordedProcess> ranks;
  std::vector<std::string> files, failed_files;
  std::vector<std::pair<int, std::string>> left_out;
  std::string first_failure;
  for (const RecordedProcess& p : processes) {
    if (p.disk_full) {
      recording_failed = true;
      failed_files.push_back(p.path);
      reporter.say(fmt::format("pid {}: writing {} stopped: {}{}; the file keeps what was committed before and says so "
                               "(incomplete: {})",
                               p.pid, p.path, p.write_failure.empty() ? "write error" : p.write_failure,
                               p.error.empty() ? "" : " (" + p.error + ")",
                               p.write_failure.empty() ? "write error" : p.write_failure));
    } else if (!p.error.empty()) {
      recording_failed = true;
      if (first_failure.empty()) first_failure = fmt::format("{}: {}", p.pid, p.error);
      failed_files.push_back(p.path);
      reporter.say(fmt::format("pid {}: writing {} failed: {}", p.pid, p.path.empty() ? "its recording" : p.path,
                               p.error));
    }
    if (p.path.empty()) {
      if (p.error.empty())
        left_out.emplace_back(p.pid, fmt::format("pid {}{}", p.pid, p.command.empty() ? "" : " (" + p.command + ")"));
      continue;
    }
    reporter.say(p.summary);
    files.push_back(p.path);
    if (p.rank >= 0 && p.error.empty() && !p.disk_full) ranks.push_back(p);
  }
  std::sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  std::string out = files.empty() ? std::string() : files.front();
  if (std::find(files.begin(), files.end(), o.out) != files.end()) out = o.out;
  if (!ranks.empty()) {
    out = paths.mergedPath();
    reporter.event("merge", fmt::format("merging {} rank traces into {}", ranks.size(), out));
    if (Status st = mergeRanks(ranks, out); !st) {
      recording_failed = true;
      reporter.say(fmt::format("merging the ranks' traces into {} failed: {}", out, st.error().message));
      out.clear();
    } else {
      files.insert(files.begin(), out);
    }
  }
  paths.abandonUnused();
  // The processes the program started that the recording left out (their parents' files say so too).
  std::vector<std::string> children_left_out;
  std::set<int> named;
  for (const RecordedProcess& p : processes)
    for (const auto& [pid, line] : p.left_out)
      if (pid <= 0 || named.insert(pid).second) children_left_out.push_back(line);  // <= 0: no pid (a shell, a count)
  if (!children_left_out.empty()) {
    const size_t shown = std::min<size_t>(children_left_out.size(), 10);
    std::string list;
    for (size_t i = 0; i < shown; ++i) list += (i ? "; " : "") + children_left_out[i];
    if (shown < children_left_out.size()) list += fmt::format("; and {} more", children_left_out.size() - shown);
    reporter.say(fmt::format("processes of the program that the recording left out: {}", list));
  }
  std::erase_if(left_out, [&named](const std::pair<int, std::string>& p) { return named.count(p.first) != 0; });
  if (!files.empty() && !left_out.empty()) {
    const size_t shown = std::min<size_t>(left_out.size(), 10);
    std::string list;
    for (size_t i = 0; i < shown; ++i) list += (i ? ", " : "") + left_out[i].second;
    if (shown < left_out.size()) list += fmt::format(" and {} more", left_out.size() - shown);
    reporter.say(fmt::format("processes that connected but recorded nothing (no torch allocations, no CUDA): {}", list));
  }
  if (files.empty() && recording_failed)
    reporter.say(fmt::format("`{}` ended ({}); nothing was recorded (pid {})", shortCommand(o.command), exit.description,
                             first_failure));
  else if (files.empty() && had_connections && exit.signalled)
    reporter.say(fmt::format("the program's processes delivered nothing before it ended ({}): the shim delivers at "
                             "step ends and at exit, and a process killed before either leaves nothing",
                             exit.description));
  else if (files.empty())
    reporter.say(had_connections ? "the program's processes recorded nothing (no PyTorch allocations, no CUDA)"
                                 : "nothing was recorded: no process of the program loaded the shim or CUDA (a Python "
                                   "program started with -I, -E or -S does not load it)");
  else if (recording_failed)
    reporter.say(fmt::format("`{}` ended ({}); the recording is incomplete: writing {} failed", shortCommand(o.command),
                             exit.description, failed_files.empty() ? out : failed_files.front()));
  else
    reporter.say(fmt::format("`{}` ended ({}); recorded into {}", shortCommand(o.command), exit.description, out));
  if (!files.empty() && o.modules == "off" && o.shim != "off")
    reporter.say("module tracking was off (the default): `--modules on` records which torch.nn.Module of a Python "
                 "program holds each byte");

  watcher.done();
  int code = exit.exit_code;
  if (code == 0 && recording_failed) code = kExitRecorderFailed;
  reporter.event("finished", exit.description,
                 {{"out", out}, {"files", files}, {"exit_code", code}, {"program_exit_code", exit.exit_code},
                  {"interrupted", launcher.interrupted()}});
  return code;
}

}  // namespace sawtooth::record
