#pragma once
// The streaming, schema-directed reader of PyTorch memory snapshots. The pickle's opcodes drive
// the unpickler as usual, but the decoder knows the snapshot's shape: each event dict of
// device_traces becomes a row of the trace's column store as its SETITEMS runs, each frames list
// an interned stack id, each frame dict an interned frame; the memo then hands out those ids, so
// a frame or stack the file shares costs once. Only the small rest (segments, annotations,
// settings) is built as generic containers. Nothing is ever imported or called: the unpickler
// refuses every such opcode with its name and offset.
//
// Where the file is shaped otherwise (an older protocol, a container used in two roles, events
// changed after they were read), the decoder says so and the generic reader
// (pickle::parse + importSnapshot) reads the file instead, under the same limits; both build the
// trace through one snapshot::Builder, so they agree exactly.

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/io/read_limits.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

struct SnapshotReadInfo {
  bool generic = false;     // read by the generic fallback
  std::string why_generic;  // what the decoder did not recognise
};

// Told how far the reader has got (io/mapped_file.h drops the pages behind it).
using ConsumedFn = std::function<void(size_t offset)>;

// Errors read "byte N: ..." or "device_traces[0][5]: ..." (the caller prefixes the file name).
Result<Trace> readSnapshot(std::shared_ptr<const void> owner, std::string_view bytes, ReadBudget& budget,
                           Progress* progress = nullptr, SnapshotReadInfo* info = nullptr,
                           const ConsumedFn& consumed = {});
// The decoder alone, with no fallback: nullopt-like error with `unrecognized` set when the shape
// is not the one it knows (for tests that compare it with the generic reader).
Result<Trace> decodeSnapshotOnly(std::shared_ptr<const void> owner, std::string_view bytes, ReadBudget& budget,
                                 Progress* progress, bool& unrecognized, const ConsumedFn& consumed = {});

namespace snapshot {
class RowSink;
struct StreamedTables;
}  // namespace snapshot

// The decoder as a stream (sawtooth-trace convert, io/snapshot_convert.h): each event goes to
// `sink` once the file has listed it, and only the tables besides the events are kept. A file
// shaped otherwise than PyTorch writes it is an error here (read it with readSnapshot instead).
Result<snapshot::StreamedTables> streamSnapshot(std::shared_ptr<const void> owner, std::string_view bytes,
                                                ReadBudget& budget, snapshot::RowSink& sink, Progress* progress = nullptr,
                                                const ConsumedFn& consumed = {});

}  // namespace sawtooth
