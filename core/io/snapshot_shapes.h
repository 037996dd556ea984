#pragma once
// The snapshot decoder's typed objects and how the unpickler meets them (pickle::Shapes): each
// event dict of device_traces is a row of the builder's column store, each list of events a list
// of row ranges, each frames list its frame ids and then its stack id, each frame dict its fields
// and then its frame id. snapshot_shapes.cpp guesses, for every new dict or list, what it will
// be, and checks the guess when items are added; snapshot_fast_path.cpp reads the events
// themselves without the parser (readAhead). Internal to io/snapshot_decoder.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/pickle_document.h"
#include "core/io/pickle_machine.h"
#include "core/io/snapshot_builder.h"
#include "core/io/snapshot_importer.h"

namespace sawtooth::snapshot {

enum Tag : uint8_t { kEvent = 1, kEventList = 2, kFrames = 3, kFrame = 4 };

// A string the decoder looks for ("frames", "device_traces"), remembered by where its bytes lie:
// the pickler writes each distinct string once and the memo hands out that same string after.
class KeyText {
 public:
  explicit KeyText(std::string_view text) : text_(text) {}
  bool is(const pickle::Value& v, const pickle::Document& doc) {
    if (v.kind != pickle::Kind::Str) return false;
    if (!v.owned && v.off == off_ && v.len == text_.size()) return true;
    if (doc.str(v) != text_) return false;
    if (!v.owned) off_ = v.off;
    return true;
  }

 private:
  std::string_view text_;
  uint64_t off_ = UINT64_MAX;
};

class SnapshotShapes final : public pickle::Shapes, public Handles {
 public:
  explicit SnapshotShapes(Builder& builder) : builder_(builder), budget_(builder.budget()) {}

  bool unrecognized() const { return unrecognized_; }
  std::string error() const override { return error_; }

  bool create(pickle::Kind kind, const pickle::StackView& stack, const pickle::Document& doc,
              pickle::Value& out) override;
  bool add(const pickle::Value& target, pickle::Kind as, std::span<const pickle::Value> items,
           pickle::Document& doc) override;
  bool readAhead(const pickle::Value& handle, pickle::Machine& machine, pickle::Document& doc) override;

  bool listRows(const pickle::Value& handle, std::span<const RowRange>& rows) const override;
  bool eventRow(const pickle::Value& handle, uint64_t& row) const override;
  bool typedStack(const pickle::Value& frames, const pickle::Document& doc, uint32_t& stack) override;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kInterned = 0x80000000u;

  // A frames list: its frame ids (a region of ids_) until an event uses it, then its stack id.
  struct FramesList {
    uint32_t begin_or_stack = 0;
    uint32_t size_or_flag = 0;  // kInterned once the stack id is known
  };
  struct FrameDict {
    pickle::Value name, file, line;
    uint32_t id = kNone;
  };
  struct SeenKey {
    uint64_t off = UINT64_MAX;
    uint32_t len = 0;
    Field field = Field::Other;
  };
  static constexpr size_t kSeenKeys = 16;
  struct FastSeen {
    uint64_t off = UINT64_MAX;
    uint32_t len = 0;
    Field field = Field::Other;
  };
  static constexpr size_t kFastSeen = 61;  // a prime: string offsets are not spread evenly

  class FastPath;  // snapshot_fast_path.cpp

  bool fail(std::string message);
  bool unrecognized(std::string what);
  template <typename V>
  bool grow(V& v, const char* what);

  bool newEvent(pickle::Value& out);
  bool newEventList(pickle::Value& out);
  bool newFrames(pickle::Value& out);
  bool newFrame(pickle::Value& out);

  bool addEvents(uint64_t list, pickle::Kind as, std::span<const pickle::Value> items);
  Field fieldOf(size_t position, const pickle::Value& key, const pickle::Document& doc);
  bool setEventFields(uint64_t row, pickle::Kind as, std::span<const pickle::Value> kv, pickle::Document& doc);
  bool setEventField(uint64_t row, Field field, const pickle::Value& v, pickle::Document& doc);
  bool stackOf(uint64_t index, uint32_t& stack);
  bool frameIdOf(uint64_t index, const pickle::Document& doc, uint32_t& id);
  bool frameIdOfItem(const pickle::Value& item, const pickle::Document& doc, uint32_t& id);
  bool addFrames(uint64_t index, pickle::Kind as, std::span<const pickle::Value> items, pickle::Document& doc);
  bool setFrameFields(uint64_t index, pickle::Kind as, std::span<const pickle::Value> kv, const pickle::Document& doc);

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
  std::vector<pickle::Value> fast_shadow_;  // the fast path's buffers, kept between calls
  std::vector<size_t> fast_marks_;
  FastSeen fast_seen_[kFastSeen];
  bool unrecognized_ = false;
  std::string error_;
};

}  // namespace sawtooth::snapshot
