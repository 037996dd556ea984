#pragma once
// Where a program recording's files go. The first process that records without a rank and is no
// child of another recorded process writes the file asked for (the program's own process, or the
// one a wrapper script starts), whichever delivers first; a distributed rank R writes
// FILE.rankR.sawtooth, merged into FILE at the end; any other process (a child of a recorded
// process: subprocess, multiprocessing) FILE.pidP.sawtooth. The file asked for is claimed before the program
// starts (output_claim.h: a link, a special file such as a FIFO or /dev/full, a directory or a
// file another recording writes is refused, an existing file unless --force), so that a refusal
// never comes after the program has run.

#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/io/output_claim.h"
#include "core/util/result.h"

namespace sawtooth::record {

// "train-20261130-143055.sawtooth" for `python train.py`.
std::string defaultOutPath(const std::vector<std::string>& command, std::time_t now);
// Why `out` cannot be written in its folder, if it cannot (the file itself is judged by the claim).
std::optional<std::string> checkOutFolder(const std::string& out);
// "run.sawtooth" + "rank1" -> "run.rank1.sawtooth".
std::string derivedPath(const std::string& out, const std::string& tag);

class OutputPaths {
 public:
  // Claims `out` now: the error names the path and what to do.
  static Result<std::unique_ptr<OutputPaths>> claimFirst(const std::string& out, bool force);
  // For tests and callers that claim nothing up front.
  OutputPaths(std::string out, bool force) : out_(std::move(out)), force_(force) {}

  // Thread-safe: the recording thread claims, the main thread asks mergedPath at the end.
  // `child`: the process' parent is a recorded process too.
  Result<OutputClaim> claim(int pid, int rank, bool child = false);
  // The path claim(pid, rank, child) would give now (for tests).
  std::string pathFor(int pid, int rank, bool child = false);
  // Where the ranks' merge goes: the file asked for, unless a process without a rank took it
  // (the claim held on it is given up for the merge's writer).
  std::string mergedPath();
  // The file asked for, when no process recorded into it: removed if the claim created it.
  void abandonUnused();

 private:
  std::string unused(const std::string& path);
  std::string pathLocked(int pid, int rank, bool child);
  std::mutex mutex_;
  std::string out_;
  bool force_;
  bool main_taken_ = false;
  std::optional<OutputClaim> main_claim_;
  std::set<std::string> claimed_;
};

}  // namespace sawtooth::record
