#include "core/io/snapshot_decoder.h"

#include <fmt/format.h>

#include "core/io/pickle_document.h"
#include "core/io/snapshot_builder.h"
#include "core/io/snapshot_importer.h"
#include "core/io/snapshot_shapes.h"

namespace sawtooth {

using snapshot::Builder;

Result<Trace> decodeSnapshotOnly(std::shared_ptr<const void> owner, std::string_view bytes, ReadBudget& budget,
                                 Progress* progress, bool& unrecognized, const ConsumedFn& consumed) {
  unrecognized = false;
  // Protocols 0 and 1 (no PROTO opcode) build containers after their items: read generically.
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != 0x80 || static_cast<uint8_t>(bytes[1]) < 2) {
    unrecognized = true;
    return Error{"the snapshot decoder reads pickle protocols 2 to 5"};
  }
  Progress parsing = progress ? progress->sub(0, 900) : Progress();
  Progress building = progress ? progress->sub(900, 1000) : Progress();
  // About one event per 64 bytes in the files PyTorch writes: room for that many rows up front.
  Builder builder(budget, progress ? &building : nullptr, bytes.size() / 64);
  snapshot::SnapshotShapes decoder(builder);
  pickle::ParseOptions options;
  options.progress = progress ? &parsing : nullptr;
  options.budget = &budget;
  options.shapes = &decoder;
  options.consumed = consumed;
  Result<pickle::Document> doc = pickle::parse(std::move(owner), bytes, options);
  if (!doc) {
    // A pickle that changes a container after the decoder read it is still a pickle: the
    // generic reader follows it (found by fuzz_snapshot; PyTorch never writes one).
    unrecognized = decoder.unrecognized() || doc.error().message.find(pickle::kChangedAfterRead) != std::string::npos;
    return doc.error();
  }
  bool walk_unrecognized = false;
  if (Status st = snapshot::walkSnapshot(*doc, builder, &decoder, walk_unrecognized); !st) {
    unrecognized = walk_unrecognized;
    return st.error();
  }
  doc = Error{""};  // the document (and the file it holds) is not needed to build the trace
  return builder.finish();
}

Result<snapshot::StreamedTables> streamSnapshot(std::shared_ptr<const void> owner, std::string_view bytes,
                                                ReadBudget& budget, snapshot::RowSink& sink, Progress* progress,
                                                const ConsumedFn& consumed) {
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != 0x80 || static_cast<uint8_t>(bytes[1]) < 2)
    return Error{"the snapshot decoder reads pickle protocols 2 to 5"};
  Builder builder(budget, nullptr);  // the parser reports the progress and sees a cancel
  builder.streamTo(&sink);
  snapshot::SnapshotShapes decoder(builder);
  pickle::ParseOptions options;
  options.progress = progress;
  options.budget = &budget;
  options.shapes = &decoder;
  options.consumed = consumed;
  Result<pickle::Document> doc = pickle::parse(std::move(owner), bytes, options);
  if (!doc) return doc.error();
  bool unrecognized = false;
  if (Status st = snapshot::walkSnapshot(*doc, builder, &decoder, unrecognized); !st) return st.error();
  doc = Error{""};
  return builder.finishStream();
}

Result<Trace> readSnapshot(std::shared_ptr<const void> owner, std::string_view bytes, ReadBudget& budget,
                           Progress* progress, SnapshotReadInfo* info, const ConsumedFn& consumed) {
  bool unrecognized = false;
  {
    ReadBudget attempt = budget;
    auto trace = decodeSnapshotOnly(owner, bytes, attempt, progress, unrecognized, consumed);
    if (trace || !unrecognized) return trace;
    if (info) {
      info->generic = true;
      info->why_generic = trace.error().message;
    }
  }
  ReadBudget generic = budget;
  Progress parsing = progress ? progress->sub(0, 800) : Progress();
  Progress building = progress ? progress->sub(800, 1000) : Progress();
  pickle::ParseOptions options;
  options.progress = progress ? &parsing : nullptr;
  options.budget = &generic;
  options.consumed = consumed;
  auto doc = pickle::parse(std::move(owner), bytes, options);
  if (!doc) return doc.error();
  return importSnapshot(*doc, generic, progress ? &building : nullptr);
}

}  // namespace sawtooth
