#include "core/io/snapshot_shapes.h"

#include <fmt/format.h>

namespace sawtooth::snapshot {

using pickle::Document;
using pickle::Kind;
using pickle::StackView;
using pickle::Value;

bool SnapshotShapes::create(Kind kind, const StackView& stack, const Document& doc, Value& out) {
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


bool SnapshotShapes::add(const Value& target, Kind as, std::span<const Value> items, Document& doc) {
  switch (target.tag) {
    case kEventList: return addEvents(target.handle, as, items);
    case kEvent: return setEventFields(target.handle, as, items, doc);
    case kFrames: return addFrames(target.handle, as, items, doc);
    case kFrame: return setFrameFields(target.handle, as, items, doc);
    default: return unrecognized("an unknown object");
  }
}


bool SnapshotShapes::listRows(const Value& handle, std::span<const RowRange>& rows) const {
  if (handle.kind != Kind::Handle || handle.tag != kEventList) return false;
  rows = lists_[handle.handle];
  return true;
}

bool SnapshotShapes::eventRow(const Value& handle, uint64_t& row) const {
  if (handle.kind != Kind::Handle || handle.tag != kEvent) return false;
  row = handle.handle;
  return true;
}

bool SnapshotShapes::fail(std::string message) {
  error_ = std::move(message);
  return false;
}
bool SnapshotShapes::unrecognized(std::string what) {
  unrecognized_ = true;
  return fail(fmt::format("the snapshot decoder does not know this shape ({})", what));
}
template <typename V>
bool SnapshotShapes::grow(V& v, const char* what) {
  if (v.size() < v.capacity()) return true;
  const size_t more = std::max<size_t>(v.capacity(), 256);
  if (!budget_.take(more * sizeof(v[0]))) return fail(budget_.memoryError(what).message);
  v.reserve(v.capacity() + more);
  return true;
}

bool SnapshotShapes::newEvent(Value& out) {
  uint64_t row = 0;
  if (!builder_.newRow(row)) return fail(builder_.error());
  out = Value::makeHandle(kEvent, row);
  return true;
}
bool SnapshotShapes::newEventList(Value& out) {
  if (!grow(lists_, "the device traces")) return false;
  out = Value::makeHandle(kEventList, lists_.size());
  lists_.emplace_back();
  return true;
}
bool SnapshotShapes::newFrames(Value& out) {
  if (!grow(frames_, "the frames lists")) return false;
  out = Value::makeHandle(kFrames, frames_.size());
  frames_.push_back(FramesList{static_cast<uint32_t>(ids_.size()), 0});
  ++open_frames_;
  return true;
}
bool SnapshotShapes::newFrame(Value& out) {
  if (!grow(frame_dicts_, "the frames")) return false;
  out = Value::makeHandle(kFrame, frame_dicts_.size());
  frame_dicts_.emplace_back();
  return true;
}

bool SnapshotShapes::addEvents(uint64_t list, Kind as, std::span<const Value> items) {
  if (as != Kind::List) return unrecognized("items added to an event list as to a dict or set");
  std::vector<RowRange>& ranges = lists_[list];
  for (const Value& item : items) {
    if (item.kind != Kind::Handle || item.tag != kEvent) return unrecognized("an event list holding something else");
    const uint64_t row = item.handle;
    if (builder_.streaming() && !builder_.listed(list, row)) return fail(builder_.error());
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
Field SnapshotShapes::fieldOf(size_t position, const Value& key, const Document& doc) {
  if (position >= kSeenKeys || key.owned) return snapshot::classifyKey(doc.str(key));
  SeenKey& seen = seen_keys_[position];
  if (seen.off != key.off || seen.len != key.len) seen = {key.off, key.len, snapshot::classifyKey(doc.str(key))};
  return seen.field;
}

bool SnapshotShapes::setEventFields(uint64_t row, Kind as, std::span<const Value> kv, Document& doc) {
  if (as != Kind::Dict) return unrecognized("items added to an event as to a list");
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    if (kv[i].kind != Kind::Str) continue;
    if (!setEventField(row, fieldOf(i / 2, kv[i], doc), kv[i + 1], doc)) return false;
  }
  return true;
}

bool SnapshotShapes::setEventField(uint64_t row, Field field, const Value& v, Document& doc) {
  switch (field) {
    case Field::Other: return true;
    case Field::Frames: {
      uint32_t stack = kNoStack;
      if (v.kind == Kind::Handle) {
        if (v.tag != kFrames) return unrecognized("an event's frames that are not a frames list");
        if (!stackOf(v.handle, stack)) return false;
      } else if (holdsTypedObject(v, doc)) {
        return unrecognized("typed frames in a generic frames list");
      } else if (!builder_.genericStack(v, doc, stack)) {
        return fail(builder_.error());
      }
      builder_.setStack(row, stack);
      return true;
    }
    case Field::Action: break;
    default:
      if (v.isInt()) {
        builder_.setInt(row, field, v.i);
        return true;
      }
  }
  if (v.kind == Kind::Handle) return unrecognized("an event field holding a typed object");
  builder_.setField(row, field, v, doc);
  return true;
}

bool SnapshotShapes::stackOf(uint64_t index, uint32_t& stack) {
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

bool SnapshotShapes::typedStack(const Value& frames, const Document& doc, uint32_t& stack) {
  stack = kNoStack;
  if (frames.kind == Kind::Handle) return frames.tag == kFrames && stackOf(frames.handle, stack);
  std::vector<uint32_t> ids;
  for (const Value& item : doc.items(frames)) {
    uint32_t id = 0;
    if (!frameIdOfItem(item, doc, id)) return false;
    ids.push_back(id);
  }
  if (!builder_.internStack(ids, stack)) return fail(builder_.error());
  return true;
}

bool SnapshotShapes::frameIdOf(uint64_t index, const Document& doc, uint32_t& id) {
  FrameDict& f = frame_dicts_[index];
  if (f.id == kNone) {
    if (!builder_.internFrame(&f.name, &f.file, &f.line, doc, f.id)) return fail(builder_.error());
  }
  id = f.id;
  return true;
}

bool SnapshotShapes::frameIdOfItem(const Value& item, const Document& doc, uint32_t& id) {
  if (item.kind == Kind::Handle) {
    if (item.tag != kFrame) return unrecognized("a frames list holding something else");
    return frameIdOf(item.handle, doc, id);
  }
  if (!builder_.genericFrame(item, doc, id)) return fail(builder_.error());
  return true;
}

bool SnapshotShapes::addFrames(uint64_t index, Kind as, std::span<const Value> items, Document& doc) {
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
    if (!frameIdOfItem(item, doc, id)) return false;
    if (!grow(ids_, "the frames lists")) return false;
    if (ids_.size() >= kInterned) return fail("more than 2 G frames in the frames lists");
    ids_.push_back(id);
    ++frames_[index].size_or_flag;
  }
  return true;
}

bool SnapshotShapes::setFrameFields(uint64_t index, Kind as, std::span<const Value> kv, const Document& doc) {
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


}  // namespace sawtooth::snapshot
