#pragma once
// The recorder's progress: one JSON object per line on stdout, flushed, so that the app (or a
// script) can follow a recording. Written by sawtooth-record and read by the app with this code.
//
//   {"stage": "run", "run": "bf16", "step": 3, "steps": 20, "fraction": 0.4, "message": "bf16: step 3 of 20"}
//
// A stage's line may carry more fields (start: workload, device, parameters; error: kind; finished:
// out, exit_code). A distributed recording's launcher passes each rank's lines on with "rank" set,
// and renames that rank's start/error/interrupted/finished to rank_start, ... (the plain ones are
// the launcher's own, about the whole recording).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/util/result.h"

namespace sawtooth::recording {

namespace stage {
inline constexpr std::string_view kStart = "start";
inline constexpr std::string_view kRun = "run";
inline constexpr std::string_view kMerge = "merge";
inline constexpr std::string_view kError = "error";
inline constexpr std::string_view kInterrupted = "interrupted";
inline constexpr std::string_view kFinished = "finished";
inline constexpr std::string_view kRankPrefix = "rank_";  // rank_start, rank_error, ...
// A process of the recording started writing its own file (a recorded program's process or rank,
// a data-parallel workload's rank): the app follows it live.
inline constexpr std::string_view kRecording = "recording";
inline constexpr std::string_view kRankStarted = "rank_started";
}  // namespace stage

// error lines' "kind"
namespace error_kind {
inline constexpr std::string_view kOutOfMemory = "oom";
inline constexpr std::string_view kInternal = "internal";
}  // namespace error_kind

// A line longer than this is not progress (a runaway print); the app skips it.
inline constexpr size_t kMaxProgressLineBytes = 64 * 1024;

struct ProgressLine {
  std::string stage;
  std::string run;
  std::string message;
  int64_t step = 0;
  int64_t steps = 0;
  std::optional<double> fraction;  // 0..1, on run lines
  std::optional<int> rank;
  std::string kind;                // error lines: error_kind
  std::string file;                // recording and rank_started lines: the file that process writes
  std::optional<int> pid;
};

// One line, without the newline: every field of `line` (rank and kind when set).
std::string formatProgressLine(const ProgressLine& line);
// A stage's own line: the fields of `extra_json` (an object; anything else is ignored), then
// stage and message.
std::string formatStageLine(std::string_view stage, std::string_view message, std::string_view extra_json = {});
Result<ProgressLine> parseProgressLine(std::string_view text);

// What the app shows for a run line: "bf16: step 3 of 20", "rank 1 · sharded: step 2 of 3" —
// the run named once even where the workload's message already starts with it.
std::string describeProgress(const ProgressLine& line);

}  // namespace sawtooth::recording
