#include "core/io/snapshot_convert.h"

#include <cstdio>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "core/io/file_bytes.h"
#include "core/io/mapped_file.h"
#include "core/io/native_writer.h"
#include "core/io/snapshot_builder.h"
#include "core/io/snapshot_decoder.h"
#include "core/io/summary_cache.h"
#include "core/io/trace_convert.h"
#include "core/io/trace_loader.h"
#include "core/model/meta_keys.h"
#include "core/model/phase_assignment.h"
#include "core/model/trace_checks.h"

namespace sawtooth {
namespace {

using snapshot::StreamedTables;

// The first pass keeps nothing of the events (the builder counts what the tables need).
class Plan final : public snapshot::RowSink {
 public:
  Status take(const EventStore&, size_t, size_t, uint64_t, uint64_t) override { return Ok{}; }
};

// The second pass: each hand-over of rows becomes events of the trace's own kind (device, times in nanoseconds from t0,
// phase), checked as the whole trace would be (trace_checks.h), and is appended to the file.
class Write final : public snapshot::RowSink {
 public:
  Write(NativeWriter& writer, const StreamedTables& plan, int64_t max_size)
      : writer_(writer), plan_(plan), max_size_(max_size) {
    phased_.phases = plan.tables.phases;
    for (const DeviceInfo& d : plan.tables.devices) totals_[d.device] = {d.baseline_allocated, d.baseline_reserved};
  }

  Status take(const EventStore& events, size_t begin, size_t end, uint64_t first_row, uint64_t list) override {
    auto device = plan_.list_device.find(list);
    if (device == plan_.list_device.end()) return whole("an event list of no device");
    if (first_row != written_) return whole("the second reading lists other events than the first");
    auto& total = totals_[device->second];
    EventStore chunk;
    chunk.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
      Event e = events.at(i);
      e.device = device->second;
      e.t_ns = e.t_ns * 1000 - plan_.t0_us * 1000;  // the bound on time_us keeps both in 64 bits
      // What checkTraceValues refuses; the whole trace's reading says where.
      if (e.size < 0 || e.size > max_size_) return whole("a size to refuse");
      const int a = allocatedSign(e.action), r = reservedSign(e.action);
      if ((a != 0 && __builtin_add_overflow(total.first, a * e.size, &total.first)) ||
          (r != 0 && __builtin_add_overflow(total.second, r * e.size, &total.second)))
        return whole("bytes that pass 2^63");
      chunk.push(e);
    }
    phased_.events = std::move(chunk);
    assignPhases(phased_);
    if (Status st = writer_.appendEventsAt(phased_.events, 0, phased_.events.size(), first_row); !st) return st;
    written_ += end - begin;
    // A transaction per hand-over: the page cache, not the memory, holds what is written.
    if (Status st = writer_.commitBatch(); !st) return st;
    return writer_.beginBatch();
  }

  uint64_t written() const { return written_; }
  bool wantsWhole() const { return wants_whole_; }

 private:
  Status whole(const char* why) {
    wants_whole_ = true;
    return Error{fmt::format("the file cannot be converted as a stream ({})", why)};
  }

  NativeWriter& writer_;
  const StreamedTables& plan_;
  const int64_t max_size_;
  Trace phased_;  // the phases, and the events of one hand-over
  std::map<DeviceId, std::pair<int64_t, int64_t>> totals_;
  uint64_t written_ = 0;
  bool wants_whole_ = false;
};

Result<StreamedTables> decode(const std::string& path, const ReadLimits& limits, snapshot::RowSink& sink,
                              Progress* progress) {
  auto mapped = MappedFile::open(path, /*populate=*/false);
  if (!mapped) return mapped.error();
  auto owner = std::make_shared<const MappedFile>(std::move(*mapped));
  const std::string_view bytes = owner->bytes();
  const MappedFile* file = owner.get();
  ReadBudget budget(limits);
  budget.setInputBytes(bytes.size());
  auto plan = streamSnapshot(std::move(owner), bytes, budget, sink, progress,
                             [file](size_t offset) { file->releaseBefore(offset); });
  if (!plan) return plan;
  // The bounds the whole trace's reading holds every format to (trace_loader.cpp).
  if (Status st = budget.withinAmplification(plan->rows, "events"); !st) return st.error();
  if (Status st = budget.withinAmplification(plan->tables.stacks.stackFrameCount(), "stack frames"); !st)
    return st.error();
  return plan;
}

Status writeTables(NativeWriter& w, const Trace& t) {
  if (Status st = w.setMeta(std::string(meta::kSourceFormat), t.format); !st) return st;
  for (const auto& [k, v] : t.meta)
    if (Status st = w.setMeta(k, v); !st) return st;
  for (const auto& d : t.devices)
    if (Status st = w.writeDevice(d); !st) return st;
  for (size_t i = 0; i < t.phases.size(); ++i)
    if (Status st = w.writePhase(static_cast<uint32_t>(i), t.phases[i]); !st) return st;
  if (Status st = w.writeStacks(t.stacks, 0, 0); !st) return st;
  if (t.segments_known)
    if (Status st = w.writeSegments(t.segments); !st) return st;
  return Ok{};
}

}  // namespace

Status convertSnapshotStreaming(const std::string& in, const std::string& out, const ReadLimits& limits, bool& whole,
                                Progress* progress) {
  whole = true;
  {
    char head[16] = {};
    size_t n = 0;
    if (std::FILE* f = std::fopen(in.c_str(), "rb")) {
      n = std::fread(head, 1, sizeof head, f);
      std::fclose(f);
    }
    const std::string_view start(head, n);
    if (detectFormat(start) != TraceFormat::PytorchSnapshot || isGzip(start))
      return Error{"not an uncompressed PyTorch snapshot"};
  }
  Progress planning = progress ? progress->sub(0, 300) : Progress();
  Progress writing = progress ? progress->sub(300, 800) : Progress();
  Progress summarising = progress ? progress->sub(800, 1000) : Progress();

  Plan plan_sink;
  auto plan = decode(in, limits, plan_sink, progress ? &planning : nullptr);
  if (!plan) return plan.error();
  // The frames' text is written once per frame: a name shared through the memo is not.
  if (Status st = withinWrittenAmplification(plan->tables.stacks, conversionInputBytes(in), limits, in); !st) {
    whole = false;
    return st;
  }
  settleBaselines(plan->tables);
  for (const DeviceInfo& d : plan->tables.devices)
    if (d.device < kCpuDevice) return Error{"a device that is not one"};

  NativeWriterOptions options;
  options.summaries = false;  // built from the written events at the end
  {
    auto writer = NativeWriter::create(out, OutputClaim::Existing::Replace, options);
    if (!writer) {
      whole = false;
      return writer.error();
    }
    NativeWriter& w = **writer;
    if (Status st = w.beginBatch(); !st) {
      whole = false;
      return st;
    }
    if (Status st = writeTables(w, plan->tables); !st) {
      whole = false;
      return st;
    }
    const auto max_size = static_cast<int64_t>(std::min<uint64_t>(limits.max_size, INT64_MAX));
    Write write_sink(w, *plan, max_size);
    auto again = decode(in, limits, write_sink, progress ? &writing : nullptr);
    if (!again) {
      whole = write_sink.wantsWhole() || again.error().message.find("cannot be read as a stream") != std::string::npos;
      return again.error();
    }
    if (again->rows != plan->rows || write_sink.written() != plan->rows)
      return Error{"the second reading of the file gave other events than the first"};
    if (Status st = w.commitBatch(); !st) {
      whole = false;
      return st;
    }
    if (Status st = w.finish(); !st) {
      whole = false;
      return st;
    }
  }
  whole = false;
  return summariseWritten(out, progress ? &summarising : nullptr);
}

}  // namespace sawtooth
