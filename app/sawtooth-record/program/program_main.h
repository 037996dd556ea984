#pragma once
// sawtooth-record [options] -- COMMAND [ARGS...]: records a program that knows nothing of
// Sawtooth. The program runs unchanged with its stdin, stdout and stderr; sawtooth-record exits
// with the program's exit status (128 + N when a signal N killed it), or 125 when it could not
// record, 126 / 127 when the command cannot be executed / is not found.

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace sawtooth::record {

struct ProgramOptions {
  std::string out;
  bool force = false;
  std::string stacks = "python";
  std::string cpu = "auto";
  std::string shim = "auto";
  // auto: on with Python stacks, off with --stacks none. Module tracking cost +1.8 to +4.1 % of GPT-2
  // small's step on the H200 (bench/results/h200-2026-12-03.md), over the 1.02x budget --stacks none
  // is chosen for; with Python stacks the user has chosen PyTorch's history's cost already (+6 to +10 %).
  std::string modules = "auto";
  std::string cupti = "on";
  // Off by default: CUPTI times every kernel by instrumenting its launch (hardware tracing is
  // Blackwell's only): +4 to +16 % step time on GPT-2 small on the H200 (bench/results/h200-2026-12-01-stop20.md).
  std::string kernels = "off";
  int sample_interval_ms = 50;
  int64_t max_entries = 200'000;
  std::string progress;
  bool quiet = false;
  int kill_after_s = 30;
  int linger_s = 10;
  bool keep_running = false;
  std::string steps;
  int64_t window_events = 0;
  // A rung of the ladder the Python shim applies to the program (capture/shim/sawtooth_shim/rungs.py).
  std::string rung;
  std::vector<std::string> command;
};

void addProgramOptions(CLI::App& app, ProgramOptions& o);
// "on" or "off": --modules, with auto resolved by --stacks.
std::string modulesTracked(const ProgramOptions& o);
// Empty when `spec` is a rung --rung accepts, else what is wrong with it.
std::string rungSpecProblem(const std::string& spec);

// True when the arguments ask to record a program (they contain "--").
bool isProgramRecording(int argc, char** argv);
int recordProgramMain(int argc, char** argv);

// sawtooth-record --help: both modes, recording a program and running a built-in workload.
std::string combinedHelp();

}  // namespace sawtooth::record
