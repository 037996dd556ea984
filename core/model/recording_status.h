#pragma once
// Whether a recording is complete, from the meta keys its recorder writes (core/model/meta_keys.h:
// complete, incomplete_reason, incomplete_detail), in the words info and the app show:
// "incomplete recording: killed (the recording process was killed by signal 9 ...)".

#include <map>
#include <string>

namespace sawtooth {

struct RecordingStatus {
  bool complete = true;  // also for traces that are not recordings (no `complete` key)
  std::string reason;    // interrupted, killed, crashed, disk full, ...
  std::string detail;
};

RecordingStatus recordingStatus(const std::map<std::string, std::string>& meta);

// Empty for a complete trace.
std::string incompleteNotice(const RecordingStatus& status);

// The reason a file that a recorder holds right now gets (its meta still says what a killed
// recording would keep).
inline constexpr const char* kStillRecording = "still being recorded";

// How a recording ends when its process dies by `signal`: "crashed" (SIGSEGV, SIGABRT, SIGBUS,
// ...) or "killed" (SIGKILL, SIGTERM, ...).
const char* incompleteReasonForSignal(int signal);
// A recorded program's process that exited (no signal) without its final delivery (os._exit,
// exec, a shim that could not deliver).
inline constexpr const char* kNoFinalDelivery = "no final delivery";

}  // namespace sawtooth
