#pragma once
// Keys of a trace's meta table that Sawtooth itself writes and reads: the model asks them (is a
// recording complete, why not), the native format stores them, the recorders set them.

#include <string_view>

namespace sawtooth::meta {

inline constexpr std::string_view kFormatVersion = "format_version";
inline constexpr std::string_view kSourceFormat = "source_format";
// "true" once the recorder finished cleanly; "false" while recording and after a fault.
inline constexpr std::string_view kComplete = "complete";
// Why a recording is incomplete, as one keyword: interrupted, killed, disk_full, crashed, ...
inline constexpr std::string_view kIncompleteReason = "incomplete_reason";
// What happened, for a person ("no space left on device (ENOSPC) writing events").
inline constexpr std::string_view kIncompleteDetail = "incomplete_detail";
// Records the capture queue dropped because the writer could not keep up (exact count).
inline constexpr std::string_view kDroppedRecords = "dropped_records";
// "true" when the segments tables hold the allocator's segments at the trace's end (Trace::segments_known).
inline constexpr std::string_view kSegmentsKnown = "segments_known";
// The ladder rung a recording applied to its program (sawtooth-record --rung): "bf16",
// "checkpoint:every=N", "compile" — the row of the ladder it measures.
inline constexpr std::string_view kRung = "rung";
// The events the summaries (format 3) cover: every seq below it, committed with them.
inline constexpr std::string_view kSummaryEvents = "summary.events";

}  // namespace sawtooth::meta
