#include "core/model/recording_status.h"

#include <csignal>

#include <fmt/format.h>

#include "core/model/meta_keys.h"

namespace sawtooth {

RecordingStatus recordingStatus(const std::map<std::string, std::string>& meta) {
  RecordingStatus s;
  const auto complete = meta.find(std::string(meta::kComplete));
  if (complete == meta.end() || complete->second != "false") return s;
  s.complete = false;
  if (auto it = meta.find(std::string(meta::kIncompleteReason)); it != meta.end()) s.reason = it->second;
  if (auto it = meta.find(std::string(meta::kIncompleteDetail)); it != meta.end()) s.detail = it->second;
  if (s.reason.empty()) s.reason = "unknown";
  return s;
}

const char* incompleteReasonForSignal(int signal) {
  switch (signal) {
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGABRT:
    case SIGSYS:
    case SIGTRAP: return "crashed";
    default: return "killed";
  }
}

std::string incompleteNotice(const RecordingStatus& s) {
  if (s.complete) return {};
  if (s.detail.empty()) return "incomplete recording: " + s.reason;
  return fmt::format("incomplete recording: {} ({})", s.reason, s.detail);
}

}  // namespace sawtooth
