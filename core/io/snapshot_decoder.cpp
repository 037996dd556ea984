#include "core/io/snapshot_decoder.h"

#include <fmt/format.h>

#include "core/io/pickle_document.h"
#include "core/io/snapshot_builder.h"
#include "core/io/snapshot_importer.h"

namespace sawtooth {
namespace {

using pickle::Document;
using pickle::Kind;
using pickle::StackView;
using pickle::Value;
using snapshot::Builder;
using snapshot::Field;
using snapshot::RowRange;

enum Tag : uint8_t { kEvent = 1, kEventList = 2, kFrames = 3, kFrame = 4 };

// A string the decoder looks for ("frames", "device_traces"), remembered by where its bytes lie:
// the pickler writes each distinct string once and the memo hands out that same string after.
class KeyText {
 public:
  explicit KeyText(std::string_view text) : text_(text) {}
  bool is(const Value& v, const Document& doc) {
    if (v.kind != Kind::Str) return false;
    if (!v.owned && v.off == off_ && v.len == text_.size()) return true;
    if (doc.str(v) != text_) return false;
    if (!v.owned) off_ = v.off;
    return true;
  }

 private:
  std::string_view text_;
  uint64_t off_ = UINT64_MAX;
};

class Decoder final : public pickle::Shapes, public snapshot::Handles {
 public:
  explicit Decoder(Builder& builder) : builder_(builder), budget_(builder.budget()) {}

  bool unrecognized() const { return unrecognized_; }
  std::string error() const override { return error_; }

  bool create(Kind kind, const StackView& stack, const Document& doc, Value& out) override {
    const std::span<const Value> v = stack.values;
    const size_t s = v.size(), m = stack.mark;
    if (s == 0) {
      if (kind == Kind::Dict && root_ == kNone) root_ = static_cast<uint32_t>(doc.containerCount());
      return true;
    }
    // The parent the new container will be added to, guessed from the stack (the guess is
    // checked when the container is added: an APPEND of a dict into an event list must bring an
    // event). First: a list on top receiving a single item by APPEND.
    if (m == SIZE_MAX || m < s) {
      const Value& top = v[s - 1];
      if (top.kind == Kind::Handle) {
        if (top.tag == kEventList && kind == Kind::Dict) return newEvent(out);
        if (top.tag == kFrames && kind == Kind::Dict) return newFrame(out);
      } else if (top.kind == Kind::List && top.container == traces_ && kind == Kind::List) {
        return newEventList(out);
      }
    }
    // Then: the container below the innermost MARK, whose items (or key, value pairs) follow it.
    if (m != SIZE_MAX && m >= 1) {
      const Value& parent = v[m - 1];
      const bool value_position = (s - m) % 2 == 1;
      if (parent.kind == Kind::Handle) {
        if (parent.tag == kEventList && kind == Kind::Dict) return newEvent(out);
        if (parent.tag == kFrames && kind == Kind::Dict) return newFrame(out);
        if (parent.tag == kEvent && value_position && kind == Kind::List && frames_key_.is(v[s - 1], doc))
          return newFrames(out);
      } else if (parent.kind == Kind::List && parent.container == traces_ && kind == Kind::List) {
        return newEventList(out);
      } else if (parent.kind == Kind::Dict && parent.container == root_ && value_position && kind == Kind::List &&
                 traces_key_.is(v[s - 1], doc)) {
        traces_ = static_cast<uint32_t>(doc.containerCount());
        return true;
      }
    }
    // Last: a dict below a key, receiving one item by SETITEM.
    if (s >= 2 && kind == Kind::List) {
      const Value& dict = v[s - 2];
      if (dict.kind == Kind::Handle && dict.tag == kEvent && frames_key_.is(v[s - 1], doc)) return newFrames(out);
      if (dict.kind == Kind::Dict && dict.container == root_ && traces_key_.is(v[s - 1], doc))
        traces_ = static_cast<uint32_t>(doc.containerCount());
    }
    return true;
  }

  bool add(const Value& target, Kind as, std::span<const Value> items, Document& doc) override {
    switch (target.tag) {
      case kEventList: return addEvents(target.handle, as, items);
      case kEvent: return setEventFields(target.handle, as, items, doc);
      case kFrames: return addFrames(target.handle, as, items, doc);
      case kFrame: return setFrameFields(target.handle, as, items, doc);
      default: return unrecognized("an unknown object");
    }
  }

  bool listRows(const Value& handle, std::span<const RowRange>& rows) const override {
    if (handle.kind != Kind::Handle || handle.tag != kEventList) return false;
    rows = lists_[handle.handle];
    return true;
  }
  bool eventRow(const Value& handle, uint64_t& row) const override {
    if (handle.kind != Kind::Handle || handle.tag != kEvent) return false;
    row = handle.handle;
    return true;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kInterned = 0x80000000u;

  // A frames list: its frame ids (a region of ids_) until an event uses it, then its stack id.
  struct FramesList {
    uint32_t begin_or_stack = 0;
    uint32_t size_or_flag = 0;  // kInterned once the stack id is known
  };
  struct FrameDict {
    Value name, file, line;
    uint32_t id = kNone;
  };

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  bool unrecognized(std::string what) {
    unrecognized_ = true;
    return fail(fmt::format("the snapshot decoder does not know this shape ({})", what));
  }
  template <typename V>
  bool grow(V& v, const char* what) {
    if (v.size() < v.capacity()) return true;
    const size_t more = std::max<size_t>(v.capacity(), 256);
    if (!budget_.take(more * sizeof(v[0]))) return fail(budget_.memoryError(what).message);
    v.reserve(v.capacity() + more);
    return true;
  }

  bool newEvent(Value& out) {
    uint64_t row = 0;
    if (!builder_.newRow(row)) return fail(builder_.error());
    out = Value::makeHandle(kEvent, row);
    return true;
  }
  bool newEventList(Value& out) {
    if (!grow(lists_, "the device traces")) return false;
    out = Value::makeHandle(kEventList, lists_.size());
    lists_.emplace_back();
    return true;
  }
  bool newFrames(Value& out) {
    if (!grow(frames_, "the frames lists")) return false;
    out = Value::makeHandle(kFrames, frames_.size());
    frames_.push_back(FramesList{static_cast<uint32_t>(ids_.size()), 0});
    ++open_frames_;
    return true;
  }
  bool newFrame(Value& out) {
    if (!grow(frame_dicts_, "the frames")) return false;
    out = Value::makeHandle(kFrame, frame_dicts_.size());
    frame_dicts_.emplace_back();
    return true;
  }

  bool addEvents(uint64_t list, Kind as, std::span<const Value> items) {
    if (as != Kind::List) return unrecognized("items added to an event list as to a dict or set");
    std::vector<RowRange>& ranges = lists_[list];
    for (const Value& item : items) {
      if (item.kind != Kind::Handle || item.tag != kEvent) return unrecognized("an event list holding something else");
      const uint64_t row = item.handle;
      if (!ranges.empty() && ranges.back().end == row) {
        ++ranges.back().end;
      } else {
        if (!grow(ranges, "the device traces")) return false;
        ranges.push_back(RowRange{row, row + 1});
      }
    }
    return true;
  }

  // The field a key names, remembered by the key's position in the dict and where its bytes lie.
  Field fieldOf(size_t position, const Value& key, const Document& doc) {
    if (position >= kSeenKeys || key.owned) return snapshot::classifyKey(doc.str(key));
    SeenKey& seen = seen_keys_[position];
    if (seen.off != key.off || seen.len != key.len) seen = {key.off, key.len, snapshot::classifyKey(doc.str(key))};
    return seen.field;
  }

  bool setEventFields(uint64_t row, Kind as, std::span<const Value> kv, Document& doc) {
    if (as != Kind::Dict) return unrecognized("items added to an event as to a list");
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      if (kv[i].kind != Kind::Str) continue;
      const Value& v = kv[i + 1];
      const Field field = fieldOf(i / 2, kv[i], doc);
      if (field == Field::Other) continue;
      if (field == Field::Frames) {
        uint32_t stack = kNoStack;
        if (v.kind == Kind::Handle) {
          if (v.tag != kFrames) return unrecognized("an event's frames that are not a frames list");
          if (!stackOf(v.handle, stack)) return false;
        } else if (!builder_.genericStack(v, doc, stack)) {
          return fail(builder_.error());
        }
        builder_.setStack(row, stack);
      } else {
        if (v.kind == Kind::Handle) return unrecognized("an event field holding a typed object");
        builder_.setField(row, field, v, doc);
      }
    }
    return true;
  }

  bool stackOf(uint64_t index, uint32_t& stack) {
    FramesList& f = frames_[index];
    if (!(f.size_or_flag & kInterned)) {
      const std::span<const uint32_t> ids(ids_.data() + f.begin_or_stack, f.size_or_flag);
      if (!builder_.internStack(ids, stack)) return fail(builder_.error());
      f = FramesList{stack, kInterned};
      // Every list so far has its stack: the ids' room is free again.
      if (--open_frames_ == 0) ids_.clear();
    }
    stack = f.begin_or_stack;
    return true;
  }

  bool frameIdOf(uint64_t index, const Document& doc, uint32_t& id) {
    FrameDict& f = frame_dicts_[index];
    if (f.id == kNone) {
      if (!builder_.internFrame(&f.name, &f.file, &f.line, doc, f.id)) return fail(builder_.error());
    }
    id = f.id;
    return true;
  }

  bool addFrames(uint64_t index, Kind as, std::span<const Value> items, Document& doc) {
    if (as != Kind::List) return unrecognized("items added to a frames list as to a dict or set");
    if (frames_[index].size_or_flag & kInterned) return unrecognized("a frames list changed after an event used it");
    {
      // Its ids go at the end of ids_: moved there first when other lists' ids came after.
      FramesList& f = frames_[index];
      if (f.begin_or_stack + f.size_or_flag != ids_.size()) {
        const size_t begin = ids_.size();
        for (uint32_t k = 0; k < f.size_or_flag; ++k) {
          if (!grow(ids_, "the frames lists")) return false;
          ids_.push_back(ids_[f.begin_or_stack + k]);
        }
        f.begin_or_stack = static_cast<uint32_t>(begin);
      }
    }
    for (const Value& item : items) {
      uint32_t id = 0;
      if (item.kind == Kind::Handle) {
        if (item.tag != kFrame) return unrecognized("a frames list holding something else");
        if (!frameIdOf(item.handle, doc, id)) return false;
      } else if (!builder_.genericFrame(item, doc, id)) {
        return fail(builder_.error());
      }
      if (!grow(ids_, "the frames lists")) return false;
      if (ids_.size() >= kInterned) return fail("more than 2 G frames in the frames lists");
      ids_.push_back(id);
      ++frames_[index].size_or_flag;
    }
    return true;
  }

  bool setFrameFields(uint64_t index, Kind as, std::span<const Value> kv, const Document& doc) {
    if (as != Kind::Dict) return unrecognized("items added to a frame as to a list");
    FrameDict& f = frame_dicts_[index];
    if (f.id != kNone) return unrecognized("a frame changed after a frames list used it");
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      if (kv[i].kind != Kind::Str) continue;
      // Frame keys are few and short: compared by length first.
      const Value& key = kv[i];
      if (key.len == 4 && doc.str(key) == "name") f.name = kv[i + 1];
      else if (key.len == 8 && doc.str(key) == "filename") f.file = kv[i + 1];
      else if (key.len == 4 && doc.str(key) == "line") f.line = kv[i + 1];
    }
    return true;
  }

  struct SeenKey {
    uint64_t off = UINT64_MAX;
    uint32_t len = 0;
    Field field = Field::Other;
  };
  static constexpr size_t kSeenKeys = 16;

  Builder& builder_;
  ReadBudget& budget_;
  uint32_t root_ = kNone;
  uint32_t traces_ = kNone;
  KeyText frames_key_{"frames"};
  KeyText traces_key_{"device_traces"};
  std::vector<std::vector<RowRange>> lists_;
  std::vector<FramesList> frames_;
  std::vector<FrameDict> frame_dicts_;
  std::vector<uint32_t> ids_;
  size_t open_frames_ = 0;
  SeenKey seen_keys_[kSeenKeys];
  bool unrecognized_ = false;
  std::string error_;
};

}  // namespace

Result<Trace> decodeSnapshotOnly(std::shared_ptr<const void> owner, std::string_view bytes, ReadBudget& budget,
                                 Progress* progress, bool& unrecognized) {
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
  Decoder decoder(builder);
  pickle::ParseOptions options;
  options.progress = progress ? &parsing : nullptr;
  options.budget = &budget;
  options.shapes = &decoder;
  Result<pickle::Document> doc = pickle::parse(std::move(owner), bytes, options);
  if (!doc) {
    unrecognized = decoder.unrecognized();
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

Result<Trace> readSnapshot(std::shared_ptr<const void> owner, std::string_view bytes, ReadBudget& budget,
                           Progress* progress, SnapshotReadInfo* info) {
  bool unrecognized = false;
  {
    ReadBudget attempt = budget;
    auto trace = decodeSnapshotOnly(owner, bytes, attempt, progress, unrecognized);
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
  auto doc = pickle::parse(std::move(owner), bytes, options);
  if (!doc) return doc.error();
  return importSnapshot(*doc, generic, progress ? &building : nullptr);
}

}  // namespace sawtooth
