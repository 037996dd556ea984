#pragma once
// What the recorder spends on a recorded program's data, whatever the program sends: the bytes
// come from a process we do not control (a bug in it, or a program that writes to the socket
// itself). Every table, queue and buffer of the ingest is bounded here; when a bound is reached the
// excess is dropped and counted in the file (capture.ingest_* meta keys) — never an abort, never
// memory without end. Real programs stay far below them (GPT-2 small on the H200: a few thousand
// frames and stacks, ~1 MB of text).

#include <cstddef>
#include <cstdint>

namespace sawtooth::record::limits {

// A frame's function name and its file name are each cut to this many bytes.
inline constexpr size_t kFrameTextBytes = 4096;
// Per process: the text of its distinct frames, phase, annotation and kernel names.
inline constexpr size_t kTextBytes = size_t{64} << 20;
// Per process: the text its distinct stacks spell out (what the writer copies to name them:
// a stack repeating a long frame 256 times costs 256 copies there).
inline constexpr size_t kStackTextBytes = size_t{128} << 20;
// Per process: frame references held by its stacks (16 bytes each).
inline constexpr size_t kStackFrameRefs = size_t{4} << 20;
// Per process: records waiting in the merger for a slower stream. Beyond it the oldest go to the
// file at once, whatever a stream's watermark says (a stuck watermark no longer holds the rest).
inline constexpr size_t kMergerRecords = size_t{1} << 20;
// All connections together: bytes of frames not yet whole. Beyond it the connection holding the
// most is closed.
inline constexpr size_t kUnfinishedFrameBytes = size_t{128} << 20;
// Per process: notices kept in the file (each cut to kNoticeBytes), and echoed to stderr.
inline constexpr size_t kNotices = 200;
inline constexpr size_t kNoticeBytes = 2048;
inline constexpr size_t kEchoedNotices = 20;
// Per process: meta keys a program's processes may set, and the bytes of each value.
inline constexpr size_t kMetaKeys = 1024;
inline constexpr size_t kMetaValueBytes = size_t{64} << 10;
// Processes the recorder keeps a recording for.
inline constexpr size_t kProcesses = 1024;

}  // namespace sawtooth::record::limits
