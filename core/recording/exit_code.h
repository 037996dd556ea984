#pragma once
// How sawtooth-record ends, and how the app reads it: the exit codes, and the prefix of the one
// line the recorder prints on stderr when it fails ("sawtooth-record: MESSAGE").

#include <optional>
#include <string_view>

namespace sawtooth::recording {

enum class ExitCode : int {
  Ok = 0,
  Internal = 1,     // anything unexpected; the message says what
  Usage = 2,        // bad arguments or parameters
  OutOfMemory = 3,  // CUDA out of memory, recorded as an oom event; the file is closed
  Interrupted = 4,  // SIGINT/SIGTERM/SIGHUP: the current batch is finished, the file closed and marked incomplete
  OutputUnwritable = 5,  // the output exists (no --force), is a directory, is being recorded, or the disk is full
};

constexpr int code(ExitCode c) { return static_cast<int>(c); }
// The code's meaning, or nothing for a code the recorder never returns (a crash, a killed rank).
std::optional<ExitCode> exitCodeFrom(int status);

// `sawtooth-record -- COMMAND` ends with the program's own exit status (128 + N when signal N
// killed it), or with one of these, as a shell would.
inline constexpr int kProgramNotRecorded = 125;    // the recorder could not record (bad option, output exists, ...)
inline constexpr int kProgramCannotExecute = 126;
inline constexpr int kProgramNotFound = 127;

inline constexpr std::string_view kRecorderProgram = "sawtooth-record";
inline constexpr std::string_view kMessagePrefix = "sawtooth-record: ";
// The message of a recorder's stderr line, without its program prefix.
std::string_view recorderMessage(std::string_view stderr_line);

}  // namespace sawtooth::recording
