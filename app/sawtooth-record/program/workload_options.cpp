#include "app/sawtooth-record/program/workload_options.h"

namespace sawtooth::record {

const char* const kExitCodesHelp =
    "Exit codes: 0 ok, 1 internal error, 2 bad arguments, 3 CUDA out of memory (recorded as an oom event),\n"
    "4 interrupted by SIGINT/SIGTERM/SIGHUP (the current batch is written and the file closed, marked incomplete),\n"
    "5 the output cannot be written (exists without --force, a directory, being recorded, or the disk is full).\n"
    "A killed or crashed recording: its file marked incomplete, then death by the same signal.\n"
    "Recording a program (-- COMMAND): the program's own exit status (128+N when killed by signal N);\n"
    "127 the command was not found, 126 it cannot be executed, 125 the recorder itself failed.";

void addWorkloadOptions(CLI::App& app, WorkloadOptions& o) {
  app.add_flag("--list", o.list, "list the workloads and their parameters");
  app.add_flag("--json", o.as_json, "with --list: print JSON");
  app.add_option("--workload", o.workload, "workload to run");
  app.add_option("--set", o.sets, "parameter override key=value (repeatable)");
  app.add_option("--device", o.device, "where to run")->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  app.add_option("--stacks", o.stacks, "capture C++ stacks of CUDA allocations (slower)")
      ->check(CLI::IsMember({"none", "cpp"}));
  app.add_option("--capture", o.capture,
                 "capture sources: all, none, or all minus some: all,-tracker,-reporter,-cupti,-kernels,-sampler "
                 "(to measure each one's overhead)");
  app.add_option("--steps", o.steps,
                 "record only steps A to B-1 (counted from 0; A: or :B leave one end open); what is alive at A "
                 "is written as a baseline");
  app.add_option("--window-events", o.window_events,
                 "keep only the last N events (older ones leave the file as it grows); what is alive at the "
                 "window's start is written as a baseline");
  app.add_option("--sample-interval", o.sample_interval,
                 "milliseconds between device-memory samples (default 50; 0: at phase boundaries only)");
  app.add_option("--out", o.out, "output .sawtooth file");
  app.add_flag("--force", o.force, "replace the output file if it exists (never a directory, never a file being recorded)");
  app.add_option("--ranks", o.ranks, "processes for a distributed workload, one per rank (one GPU each on CUDA)");
  app.add_option("--timeout", o.timeout_s, "with --ranks: seconds before unfinished ranks are stopped (default 3600)");
  app.add_option("--rank", o.rank)->group("");
  app.add_option("--world-size", o.world_size)->group("");
  app.add_option("--store-port", o.store_port)->group("");
}

}  // namespace sawtooth::record
