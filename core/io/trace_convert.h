#pragma once
// Converting a trace file into a .sawtooth file, as `sawtooth-trace convert`
// and the app's cached conversions do: a .sawtooth of an older format is copied
// and summarised (upgradeNative), an uncompressed PyTorch snapshot streams into
// the file (convertSnapshotStreaming), anything else is read whole and written.
// Each refuses a conversion whose output would be far larger than its input
// (the amplification limit, applied to the bytes written as well as to what is
// read): a file whose frames share one long name through the pickle's memo
// writes that name once per frame.

#include <cstdint>
#include <optional>
#include <string>

#include "core/io/read_limits.h"
#include "core/model/stack_table.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

// `in` written as a .sawtooth file at `out` (replaced). On an error `out` may
// hold part of a file: convertIntoCache writes a temporary beside its target
// for that reason.
Status convertTrace(const std::string &in, const std::string &out, const ReadLimits &limits,
                    Progress *progress = nullptr);

// The bytes a conversion's output is held against: the file's size, or for a
// gzip file the larger of that and the size its trailer says it decompresses to
// (modulo 2^32, as gzip keeps it).
uint64_t conversionInputBytes(const std::string &path);
// The frames table's text (each distinct frame's name and file) against the
// amplification limit: at most max_amplification bytes per byte of input past
// amplification_floor. The error names the file, the frame with the longest
// text and how many frames repeat it.
Status withinWrittenAmplification(const StackTable &stacks, uint64_t input_bytes, const ReadLimits &limits,
                                  const std::string &label);

// The app's conversions of snapshots too large to read whole:
// `dir`/KEY.sawtooth, KEY the snapshot's content key (summary_cache.h:
// fileContentKey — its size, modification time and first and last MiB), so that
// a snapshot converted once opens from its conversion the next time, and a
// changed one is converted again.
Result<std::string> cachedConversionPath(const std::string &dir, const std::string &snapshot);
// The conversion of `snapshot` when the cache holds one; nothing otherwise.
std::optional<std::string> findCachedConversion(const std::string &dir, const std::string &snapshot);
// Converts `snapshot` into the cache (a temporary first, renamed when whole: a
// cancelled or failed conversion leaves nothing there) and returns the
// converted file's path.
Result<std::string> convertIntoCache(const std::string &dir, const std::string &snapshot, const ReadLimits &limits,
                                     Progress *progress = nullptr);

}  // namespace sawtooth
