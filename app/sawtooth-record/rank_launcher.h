#pragma once
// Runs the ranks of a distributed recording: one child process of this program per rank, each
// recording its own trace. Their progress lines come through tagged with "rank" (their start,
// error, interrupted and finished lines renamed rank_start, ...: those stages without a rank are
// the launcher's, about the whole recording); their stderr lines come prefixed "[rank R]". If a rank fails, is killed, or the ranks outlive the
// time limit, the others get SIGTERM and, after a grace period, SIGKILL, so that a rank stuck in a
// collective never hangs the recording. Plain POSIX; no LibTorch.

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "app/sawtooth-record/progress_json.h"

namespace sawtooth::record {

struct RankLaunch {
  std::string executable;
  // Arguments every rank gets; the launcher adds --out, --rank, --world-size, --store-port.
  std::vector<std::string> args;
  std::string out;  // the merged trace; rank R writes recording::rankFilePath(out, R)
  int ranks = 1;
  int store_port = 0;
  std::chrono::seconds timeout{3600};
  std::chrono::milliseconds kill_grace{3000};
};

struct RankLaunchResult {
  int exit_code = 0;     // for sawtooth-record: 0 when every rank succeeded
  std::string message;   // why not, for the user
  std::string kind;      // rank_failed, timeout, interrupted, internal
  int failed_rank = -1;  // the first rank that failed, if one did
  std::vector<std::string> rank_files;
};

RankLaunchResult runRanks(const RankLaunch& launch, JsonLinesProgress& progress, const std::atomic<bool>& stop);

}  // namespace sawtooth::record
