#pragma once
// The `segments`, `oom`, `modules`, `diff` and `ladder` subcommands of sawtooth-trace: the allocator's
// segments and blocks at any event (with the out-of-memory explanation at an OOM event), the first
// out-of-memory's post-mortem, the bytes
// each module holds at the peak or any event, a diff of two traces by call site or by module, and
// the ladder's predictions for a recording. Each registers its options on the app and runs when its
// subcommand was given.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/io/read_limits.h"

namespace sawtooth::cli {

struct SegmentsOptions {
  CLI::App* command = nullptr;
  CLI::Option* at_option = nullptr;
  std::string file;
  std::string device;
  int64_t at = -1;
  bool json = false;
  bool summaries = false;  // a .sawtooth file read on demand (core/io/file_moments.h)
};
void addSegmentsCommand(CLI::App& app, SegmentsOptions& options);
int runSegmentsCommand(const SegmentsOptions& options, const ReadLimits& limits);

struct ModulesOptions {
  CLI::App* command = nullptr;
  std::string file;
  std::string device;
  std::string at = "peak";  // peak, end, or an allocator-event index
  int depth = -1;  // -1: every module
  bool json = false;
  bool summaries = false;
};
void addModulesCommand(CLI::App& app, ModulesOptions& options);
int runModulesCommand(const ModulesOptions& options, const ReadLimits& limits);

struct DiffOptions {
  CLI::App* command = nullptr;
  std::string a, b;
  std::vector<std::string> runs;  // one: both sides; two: A's, then B's
  std::string by = "site";        // site | module
  bool json = false;
  bool summaries = false;
  bool totals = false;  // with summaries: count what each site allocated over each file
};
void addDiffCommand(CLI::App& app, DiffOptions& options);
// Each file is read within `limits`.
int runDiffCommand(const DiffOptions& options, const ReadLimits& limits);

struct OomOptions {
  CLI::App* command = nullptr;
  std::string file;
  bool json = false;
  bool summaries = false;
};
void addOomCommand(CLI::App& app, OomOptions& options);
int runOomCommand(const OomOptions& options, const ReadLimits& limits);

struct LadderCommandOptions {
  CLI::App* command = nullptr;
  std::string file, run, device, device_memory;
  std::vector<std::string> measured;
  int shard_devices = 0;
  double link_bandwidth = 0;  // GB/s; 0: from the device's name
  bool json = false;
  bool no_source = false;
};
void addLadderCommand(CLI::App& app, LadderCommandOptions& options);
int runLadderCommand(const LadderCommandOptions& options, const ReadLimits& limits);

}  // namespace sawtooth::cli
