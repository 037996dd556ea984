#pragma once
// The `segments` and `diff` subcommands of sawtooth-trace: the allocator's segments and blocks at
// any event (with the out-of-memory explanation at an OOM event), and a diff of two traces by
// call site. Each registers its options on the app and runs when its subcommand was given.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace sawtooth::cli {

struct SegmentsOptions {
  CLI::App* command = nullptr;
  CLI::Option* at_option = nullptr;
  std::string file;
  std::string device;
  int64_t at = -1;
  bool json = false;
};
void addSegmentsCommand(CLI::App& app, SegmentsOptions& options);
int runSegmentsCommand(const SegmentsOptions& options);

struct DiffOptions {
  CLI::App* command = nullptr;
  std::string a, b;
  std::vector<std::string> runs;  // one: both sides; two: A's, then B's
  bool json = false;
};
void addDiffCommand(CLI::App& app, DiffOptions& options);
int runDiffCommand(const DiffOptions& options);

}  // namespace sawtooth::cli
