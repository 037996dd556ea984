#include <fmt/format.h>

#include "app/sawtooth-record/program/program_main.h"
#include "app/sawtooth-record/program/workload_options.h"

namespace sawtooth::record {
namespace {

// A sub-command's option list without CLI11's own "Usage:" line (the usage is given once, above).
std::string optionsOnly(CLI::App& app) {
  std::string text = app.help("", CLI::AppFormatMode::Normal), out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    if (!line.starts_with("Usage:")) out.append(line).append("\n");
    at = end + 1;
  }
  return out;
}

}  // namespace

std::string combinedHelp() {
  CLI::App program{"Record a program (options before --):"};
  ProgramOptions p;
  addProgramOptions(program, p);
  program.set_help_flag();
  CLI::App workloads{"Run a built-in workload (needs the sawtooth-recorder package, which brings LibTorch):"};
  WorkloadOptions w;
  addWorkloadOptions(workloads, w);
  workloads.set_help_flag();
  return fmt::format(
      "sawtooth-record: record the GPU (and CPU) memory of a PyTorch program, or run a built-in workload.\n\n"
      "Usage:\n"
      "  sawtooth-record [OPTIONS] -- COMMAND [ARGS...]        record any program: python train.py, torchrun ...,\n"
      "                                                        a LibTorch binary (no LibTorch needed here)\n"
      "  sawtooth-record --workload NAME --out FILE [OPTIONS]  run one of the seed's experiments\n"
      "  sawtooth-record --list [--json]                       list the workloads and their parameters\n"
      "  sawtooth-record --help                                this help\n\n"
      "{}\n{}\n{}\n",
      optionsOnly(program), optionsOnly(workloads), kExitCodesHelp);
}

}  // namespace sawtooth::record
