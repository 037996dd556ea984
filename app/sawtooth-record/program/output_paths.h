#pragma once
// Where a program recording's files go. The first process that records without a rank writes
// the file asked for; a distributed rank R writes FILE.rankR.sawtooth, merged into FILE at the
// end; any other process FILE.pidP.sawtooth. An existing file is never replaced without --force.

#include <ctime>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sawtooth::record {

// "train-20261130-143055.sawtooth" for `python train.py`.
std::string defaultOutPath(const std::vector<std::string>& command, std::time_t now);
// Why `out` cannot be written, if it cannot.
std::optional<std::string> checkOutPath(const std::string& out, bool force);
// "run.sawtooth" + "rank1" -> "run.rank1.sawtooth".
std::string derivedPath(const std::string& out, const std::string& tag);

class OutputPaths {
 public:
  OutputPaths(std::string out, bool force) : out_(std::move(out)), force_(force) {}
  // Thread-safe: the recording thread claims, the main thread asks mergedPath at the end.
  std::string claim(int pid, int rank);
  // Where the ranks' merge goes: the file asked for, unless a process without a rank took it.
  std::string mergedPath();

 private:
  std::string unused(const std::string& path);
  std::mutex mutex_;
  std::string out_;
  bool force_;
  bool main_taken_ = false;
  std::set<std::string> claimed_;
};

}  // namespace sawtooth::record
