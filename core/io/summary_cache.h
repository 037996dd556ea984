#pragma once
// Where a .sawtooth file's summaries come from when reading it (format 3; docs/sawtooth-format.md):
// the file itself when it holds them and they look whole; otherwise (a file of format 1, a killed
// window, summaries that disagree with the events: hand-edited, or cut by a full disk) they are
// built from its events, once, into the user's cache — a small SQLite file of summaries beside
// nothing, keyed by the file's size, modification time and first and last MiB. The user's file is
// never written.

#include <optional>
#include <string>

#include "core/io/native_summaries.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

// $SAWTOOTH_CACHE_DIR, else $XDG_CACHE_HOME/sawtooth, else ~/.cache/sawtooth; summaries in its
// summaries/ folder.
std::string summaryCacheDir();
// A file's content key, 16 hex digits: its size, modification time and first and last MiB hashed
// (a few milliseconds for any size; a whole-file hash would read a 2 GB file on every open).
Result<std::string> fileContentKey(const std::string& path);
// The cache file a trace file's summaries would have ("…/summaries/KEY.sawtooth-summaries").
Result<std::string> summaryCachePath(const std::string& path);

struct SummaryPlace {
  std::string events;     // the file the events are read from (the user's)
  std::string summaries;  // the file the summaries are read from: the same, or one in the cache
  bool cached = false;
  std::string why_cached;  // "format 1", "its summaries cover 10 events where it holds 12", ...
};

// Where to read the summaries of `path`: the file itself when they look whole (a quick check, no
// pass over the events), or a cache file already built for this content. Nothing when they must
// be built (why: in `why`).
Result<std::optional<SummaryPlace>> findSummaries(const std::string& path, std::string* why = nullptr);
// Builds the cache file for `path` (one pass over its events; a snapshot's converted file with the
// allocator's segments is read whole once, for the allocator's state when its trace began), and
// says where to read.
Result<SummaryPlace> buildCachedSummaries(const std::string& path, const std::string& why, Progress* progress = nullptr);
// findSummaries, else buildCachedSummaries.
Result<SummaryPlace> summariesOf(const std::string& path, Progress* progress = nullptr);

// Compares the summaries `path` holds (or its cache's) with its events, reading every event
// once; when they disagree, builds the cache file from the events (never touching the file).
struct SummaryVerdict {
  native::SummaryCheck check;
  std::optional<SummaryPlace> rebuilt;  // where to read now, when they disagreed
};
Result<SummaryVerdict> verifySummaries(const SummaryPlace& place, Progress* progress = nullptr);

// Writes `in` (a .sawtooth of any format) as a format-2 file at `out`: the database copied page
// by page (SQLite's backup), then its summaries built from its events. Memory is bounded by the
// summaries, not the events.
Status upgradeNative(const std::string& in, const std::string& out, Progress* progress = nullptr);

// Builds the summaries of a .sawtooth file just written without them (io/snapshot_convert.h),
// in place, from its events: memory bounded by the summaries.
Status summariseWritten(const std::string& path, Progress* progress = nullptr);

}  // namespace sawtooth
