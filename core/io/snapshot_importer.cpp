#include "core/io/snapshot_importer.h"

#include <limits>

#include <fmt/format.h>

#include "core/io/pickle_text.h"
#include "core/io/snapshot_segments.h"

namespace sawtooth {
namespace snapshot {
namespace {

using pickle::Document;
using pickle::Kind;
using pickle::Value;

std::string describeKind(const Value& v) {
  return v.kind == Kind::None ? std::string("None") : fmt::format("a {}", pickle::kindName(v.kind));
}

class Walker {
 public:
  Walker(const Document& doc, Builder& builder, Handles* handles)
      : doc_(doc),
        builder_(builder),
        handles_(handles),
        limits_(builder.budget().limits()),
        max_visits_(std::max<uint64_t>(uint64_t{1} << 20, 16 * static_cast<uint64_t>(doc.inputSize()))) {}

  Status walk(bool& unrecognized) {
    Status st = walkRoot();
    unrecognized = unrecognized_;
    return st;
  }

 private:
  Error unrecognized(std::string what) {
    unrecognized_ = true;
    return Error{std::move(what)};
  }
  // Every item the walk reads counts: a memo lets a small file list the same big container
  // millions of times, which would otherwise be millions of times the work.
  bool visit(size_t items) {
    visits_ += items;
    return visits_ <= max_visits_;
  }
  Error tooManyVisits() const {
    return Error{fmt::format("the file refers back to the same data more than {} times for its size (a memo bomb?)",
                             max_visits_)};
  }
  static bool intValue(const Value& v, int64_t& out) {
    if (!v.isInt()) return false;
    out = v.i;
    return true;
  }

  Status walkRoot() {
    const Value& root = doc_.root();
    const Value* segments = nullptr;
    const Value* traces = nullptr;
    if (root.kind == Kind::List) {
      segments = &root;  // PyTorch before 2.0 pickled the segment list alone
    } else if (root.kind == Kind::Dict) {
      segments = doc_.get(root, "segments");
      traces = doc_.get(root, "device_traces");
      if (!segments && !traces)
        return Error{"this pickle is a dict without 'segments' or 'device_traces': not a PyTorch memory snapshot"};
    } else if (root.kind == Kind::Handle) {
      return unrecognized("the pickle's root is not a dict");
    } else {
      return Error{fmt::format("the pickle holds {}, not a PyTorch memory snapshot (a dict)", describeKind(root))};
    }
    if (traces)
      if (Status st = walkTraces(*traces); !st) return st;
    if (segments)
      if (Status st = walkSegments(*segments); !st) return st;
    if (root.kind == Kind::Dict) {
      if (const Value* ann = doc_.get(root, "external_annotations"))
        if (Status st = walkAnnotations(*ann); !st) return st;
      if (const Value* settings = doc_.get(root, "allocator_settings")) {
        if (settings->kind == Kind::Handle) return unrecognized("'allocator_settings' is a typed object");
        auto kv = doc_.items(*settings);
        if (!visit(kv.size())) return tooManyVisits();
        for (size_t i = 0; i + 1 < kv.size(); i += 2) {
          if (kv[i].kind != Kind::Str) continue;
          bool saw_handle = false;
          std::string text = pickle::toText(doc_, kv[i + 1], 16, &saw_handle);
          if (saw_handle) return unrecognized("a typed object inside 'allocator_settings'");
          builder_.setMeta("allocator." + std::string(doc_.str(kv[i])), std::move(text));
        }
      }
    }
    return Ok{};
  }

  Status checkDevices(size_t count) const {
    if (count > limits_.max_devices)
      return Error{fmt::format("more than {} devices (the devices limit; {})", limits_.max_devices, raiseHint("devices"))};
    return Ok{};
  }

  Status walkTraces(const Value& traces) {
    if (traces.kind == Kind::Handle) return unrecognized("'device_traces' is a typed object");
    if (traces.kind != Kind::List) return Error{"'device_traces' is not a list"};
    auto devices = doc_.items(traces);
    if (Status st = checkDevices(devices.size()); !st) return st;
    if (!visit(devices.size())) return tooManyVisits();
    for (size_t d = 0; d < devices.size(); ++d) {
      const auto device = static_cast<DeviceId>(d);
      const Value& list = devices[d];
      std::span<const RowRange> rows;
      if (list.kind == Kind::Handle) {
        if (!handles_ || !handles_->listRows(list, rows)) return unrecognized("a typed object in 'device_traces'");
        uint64_t count = 0;
        for (const RowRange& r : rows) count += r.end - r.begin;
        if (!visit(count)) return tooManyVisits();
        builder_.setListDevice(list.handle, device);
        builder_.addDeviceRows(device, rows);
        continue;
      }
      if (list.kind != Kind::List) return Error{fmt::format("device_traces[{}] is not a list", d)};
      if (Status st = walkEvents(device, doc_.items(list)); !st) return st;
    }
    return Ok{};
  }

  Status walkEvents(DeviceId device, std::span<const Value> entries) {
    if (!visit(entries.size())) return tooManyVisits();
    std::vector<RowRange> ranges;
    auto add = [&](uint64_t row) {
      if (!ranges.empty() && ranges.back().end == row) ranges.back().end = row + 1;
      else ranges.push_back(RowRange{row, row + 1});
    };
    for (size_t index = 0; index < entries.size(); ++index) {
      const Value& entry = entries[index];
      uint64_t row = 0;
      if (entry.kind == Kind::Handle) {
        if (!handles_ || !handles_->eventRow(entry, row)) return unrecognized("a typed object among the events");
        add(row);
        continue;
      }
      if (entry.kind != Kind::Dict)
        return Error{fmt::format("device_traces[{}][{}] is {}, not a dict", device, index, describeKind(entry))};
      // A dict listed again (through the memo) is the same event again, as for the decoder's
      // typed events: its row is listed twice, and its items are read once, so the walk's work
      // over them is bounded by the file's size and only the listing counts as visits.
      if (Status st = reserveDictRows(); !st) return st;
      if (const uint32_t seen = dict_rows_[entry.container]) {
        add(seen - 1);
        continue;
      }
      if (!builder_.newRow(row)) return Error{builder_.error()};
      // Rows past 2^32 - 2 are beyond any memory limit (about 50 bytes each).
      if (row + 1 < UINT32_MAX) dict_rows_[entry.container] = static_cast<uint32_t>(row + 1);
      auto kv = doc_.items(entry);
      for (size_t i = 0; i + 1 < kv.size(); i += 2) {
        if (kv[i].kind != Kind::Str) continue;
        const Value& v = kv[i + 1];
        const Field field = classifyKey(doc_.str(kv[i]));
        if (field == Field::Frames) {
          if (v.kind == Kind::Handle) return unrecognized("typed frames in a generic event");
          if (handles_ && holdsTypedObject(v, doc_)) return unrecognized("typed frames in a generic frames list");
          uint32_t stack = kNoStack;
          if (!builder_.genericStack(v, doc_, stack)) return Error{builder_.error()};
          builder_.setStack(row, stack);
        } else if (field != Field::Other) {
          if (v.kind == Kind::Handle) return unrecognized("a typed object as an event's value");
          builder_.setField(row, field, v, doc_);
        }
      }
      add(row);
    }
    builder_.addDeviceRows(device, ranges);
    return Ok{};
  }

  Status reserveDictRows() {
    if (!dict_rows_.empty()) return Ok{};
    const size_t n = doc_.containerCount();
    if (!builder_.budget().take(n * sizeof(uint32_t))) return builder_.budget().memoryError("the events' dicts");
    dict_rows_.assign(n, 0);
    return Ok{};
  }

  // An optional non-negative integer field of a segment, block or annotation.
  Status sizeField(const Value& dict, const char* key, const std::string& where, int64_t& out) {
    out = 0;
    const Value* v = doc_.get(dict, key);
    if (!v) return Ok{};
    if (v->kind == Kind::Handle) return unrecognized("a typed object as a size");
    if (!intValue(*v, out))
      return Error{fmt::format("{}: '{}' is {}, not an integer", where, key, describeKind(*v))};
    if (out < 0) return Error{fmt::format("{}: {} {} is negative", where, key, out)};
    return Ok{};
  }

  Status walkSegments(const Value& segments) {
    if (segments.kind == Kind::Handle) return unrecognized("'segments' is a typed object");
    if (segments.kind != Kind::List) return Error{"'segments' is not a list"};
    builder_.setHasSegments();
    auto items = doc_.items(segments);
    if (!visit(items.size())) return tooManyVisits();
    for (size_t index = 0; index < items.size(); ++index) {
      const Value& seg = items[index];
      if (seg.kind == Kind::Handle) return unrecognized("a typed object among the segments");
      if (seg.kind != Kind::Dict) return Error{fmt::format("segments[{}] is not a dict", index)};
      const std::string where = fmt::format("segments[{}]", index);
      auto kv = doc_.items(seg);
      if (!visit(kv.size())) return tooManyVisits();
      int64_t device = 0;
      if (const Value* v = doc_.get(seg, "device")) {
        if (v->kind == Kind::Handle) return unrecognized("a typed object as a device");
        if (!intValue(*v, device))
          return Error{fmt::format("{}: 'device' is {}, not an integer", where, describeKind(*v))};
        if (device < 0 || device > std::numeric_limits<DeviceId>::max())
          return Error{fmt::format("{}: device {} is not a CUDA device", where, device)};
        if (static_cast<uint64_t>(device) >= limits_.max_devices)
          return Error{fmt::format("{}: device {} is past the devices limit ({}; {})", where, device,
                                   limits_.max_devices, raiseHint("devices"))};
      }
      int64_t total = 0;
      if (Status st = sizeField(seg, "total_size", where, total); !st) return st;
      int64_t allocated = 0;
      if (const Value* blocks = doc_.get(seg, "blocks")) {
        if (blocks->kind == Kind::Handle) return unrecognized("typed blocks");
        auto list = doc_.items(*blocks);
        if (!visit(list.size())) return tooManyVisits();
        for (size_t b = 0; b < list.size(); ++b) {
          const Value& block = list[b];
          if (block.kind == Kind::Handle) return unrecognized("a typed block");
          const Value* state = doc_.get(block, "state");
          if (!visit(doc_.items(block).size())) return tooManyVisits();
          if (!state || state->kind != Kind::Str) continue;
          const std::string_view s = doc_.str(*state);
          if (s != "active_allocated" && s != "active_pending_free") continue;
          int64_t requested = 0;
          if (Status st = sizeField(block, "requested_size", fmt::format("{}.blocks[{}]", where, b), requested); !st)
            return st;
          if (__builtin_add_overflow(allocated, requested, &allocated))
            return Error{fmt::format("{}: the requested sizes of its blocks sum past 2^63 bytes", where)};
        }
      }
      builder_.addSegmentTotals(static_cast<DeviceId>(device), total, allocated);
      // The segment itself, for the allocator replay (core/analysis/allocator_history).
      bool stack_failed = false;
      auto stackOf = [&](const Value& frames) {
        uint32_t stack = kNoStack;
        const bool typed = frames.kind == Kind::Handle || holdsTypedObject(frames, doc_);
        if (typed ? !handles_ || !handles_->typedStack(frames, doc_, stack) : !builder_.genericStack(frames, doc_, stack))
          stack_failed = true;
        return stack;
      };
      auto parsed = readSnapshotSegment(doc_, seg, index, stackOf, &builder_.segmentWarnings());
      if (!parsed) return parsed.error();
      if (stack_failed) {
        if (!builder_.error().empty()) return Error{builder_.error()};
        return unrecognized("typed frames in a segment");
      }
      if (!builder_.addSegment(std::move(*parsed))) return Error{builder_.error()};
    }
    return Ok{};
  }

  Status walkAnnotations(const Value& annotations) {
    if (annotations.kind == Kind::Handle) return unrecognized("'external_annotations' is a typed object");
    if (annotations.kind != Kind::List) return Error{"'external_annotations' is not a list"};
    auto items = doc_.items(annotations);
    if (!visit(items.size())) return tooManyVisits();
    constexpr int64_t kMaxAbsTimeUs = std::numeric_limits<int64_t>::max() / 2000;
    for (size_t index = 0; index < items.size(); ++index) {
      const Value& a = items[index];
      if (a.kind == Kind::Handle) return unrecognized("a typed annotation");
      if (a.kind != Kind::Dict) return Error{fmt::format("external_annotations[{}] is not a dict", index)};
      if (!visit(doc_.items(a).size())) return tooManyVisits();
      const std::string where = fmt::format("external_annotations[{}]", index);
      std::string name;
      bool start = false;
      int64_t device = 0, time_us = 0;
      if (const Value* v = doc_.get(a, "name"); v && v->kind == Kind::Str) name = std::string(doc_.str(*v).substr(0, 4096));
      if (const Value* v = doc_.get(a, "stage"); v && v->kind == Kind::Str) start = doc_.str(*v) == "START";
      if (const Value* v = doc_.get(a, "device")) {
        if (v->kind == Kind::Handle) return unrecognized("a typed object as a device");
        if (!intValue(*v, device))
          return Error{fmt::format("{}: 'device' is {}, not an integer", where, describeKind(*v))};
        if (device < 0 || device > std::numeric_limits<DeviceId>::max())
          return Error{fmt::format("{}: device {} is not a CUDA device", where, device)};
      }
      if (const Value* v = doc_.get(a, "time_us")) {
        if (v->kind == Kind::Handle) return unrecognized("a typed object as a time");
        if (!intValue(*v, time_us))
          return Error{fmt::format("{}: 'time_us' is {}, not an integer", where, describeKind(*v))};
      }
      if (time_us < -kMaxAbsTimeUs || time_us > kMaxAbsTimeUs)
        return Error{fmt::format("{}: time_us {} is out of range", where, time_us)};
      builder_.addAnnotation(std::move(name), start, static_cast<DeviceId>(device), time_us);
    }
    return Ok{};
  }

  const Document& doc_;
  Builder& builder_;
  Handles* handles_;
  const ReadLimits& limits_;
  uint64_t visits_ = 0;
  const uint64_t max_visits_;
  std::vector<uint32_t> dict_rows_;  // by container: the row + 1 of a dict already read as an event
  bool unrecognized_ = false;
};

}  // namespace

bool holdsTypedObject(const Value& list, const pickle::Document& doc) {
  if (list.kind != Kind::List) return false;
  for (const Value& item : doc.items(list))
    if (item.kind == Kind::Handle) return true;
  return false;
}

Status walkSnapshot(const pickle::Document& doc, Builder& builder, Handles* handles, bool& unrecognized) {
  return Walker(doc, builder, handles).walk(unrecognized);
}

}  // namespace snapshot

Result<Trace> importSnapshot(const pickle::Document& doc, ReadBudget& budget, Progress* progress) {
  snapshot::Builder builder(budget, progress);
  bool unrecognized = false;
  if (Status st = snapshot::walkSnapshot(doc, builder, nullptr, unrecognized); !st) return st.error();
  return builder.finish();
}

Result<Trace> importSnapshot(const pickle::Document& doc, Progress* progress) {
  ReadBudget budget;
  return importSnapshot(doc, budget, progress);
}

}  // namespace sawtooth
