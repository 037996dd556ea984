#include "core/recording/exit_code.h"

namespace sawtooth::recording {

std::optional<ExitCode> exitCodeFrom(int status) {
  switch (status) {
    case code(ExitCode::Ok): return ExitCode::Ok;
    case code(ExitCode::Internal): return ExitCode::Internal;
    case code(ExitCode::Usage): return ExitCode::Usage;
    case code(ExitCode::OutOfMemory): return ExitCode::OutOfMemory;
    case code(ExitCode::Interrupted): return ExitCode::Interrupted;
    case code(ExitCode::OutputUnwritable): return ExitCode::OutputUnwritable;
    default: return std::nullopt;
  }
}

std::string_view recorderMessage(std::string_view line) {
  if (line.starts_with(kMessagePrefix)) line.remove_prefix(kMessagePrefix.size());
  return line;
}

}  // namespace sawtooth::recording
