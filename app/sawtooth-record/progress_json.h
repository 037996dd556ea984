#pragma once
// Progress as JSON lines on stdout, one object per line, flushed, so that the app (or a script)
// can follow a recording. The line's format is core/recording/progress_line.h.

#include <cstdio>
#include <mutex>
#include <string>

#include "workloads/experiments/workload.h"

namespace sawtooth::record {

class JsonLinesProgress : public workloads::ProgressSink {
 public:
  explicit JsonLinesProgress(std::FILE* out) : out_(out) {}
  void report(const std::string& stage, const std::string& run, int64_t step, int64_t steps, double fraction,
              const std::string& message) override;
  // A line with extra fields (start, finish, errors).
  void event(const std::string& stage, const std::string& message, const std::string& extra_json = "{}");

 private:
  void write(const std::string& line);
  std::FILE* out_;
  std::mutex mutex_;
};

}  // namespace sawtooth::record
