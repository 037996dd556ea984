#pragma once
// The recorder watches itself: the recording runs in a child process, and the process that was
// started stays as its supervisor. When the child dies by a signal — killed (SIGKILL, the
// out-of-memory killer) or crashed (SIGSEGV, SIGABRT, ...) — nothing inside it can close the
// file, so the supervisor marks it incomplete with that reason (every committed batch stays),
// prints the JSON error line, and then dies by the same signal, so that whoever started the
// recorder sees exactly what happened. SIGINT, SIGTERM and SIGHUP sent to the supervisor go on
// to the recording, which stops cleanly; a killed supervisor takes the recording with it.
// Call it before anything starts threads or CUDA (fork keeps only the calling thread).

#include "app/sawtooth-record/progress_json.h"
#include "core/io/output_claim.h"
#include "core/model/recording_status.h"

namespace sawtooth::record {

// Returns in the child, which goes on to record. In the supervisor it never returns. Without
// fork (resources exhausted) it returns false and the caller records unsupervised.
bool superviseRecording(const OutputClaim& output, JsonLinesProgress& progress);

}  // namespace sawtooth::record
