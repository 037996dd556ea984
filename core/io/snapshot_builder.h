#pragma once
// What both snapshot readers (the streaming decoder and the generic fallback) build a Trace
// through, so that they agree to the byte: event rows staged in creation order and field by field
// as the pickle assigns them (the last assignment wins, as in a Python dict), stacks interned from
// frames, then each device's rows in the order the file lists them, the baseline from the
// segments, phases from the annotations. Values are judged when the trace is built, with the
// event's place in the file ("device_traces[0][17]: size -5 is negative").

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/io/pickle_document.h"
#include "core/io/read_limits.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth::snapshot {

enum class Field : uint8_t { Other, Action, Addr, Size, Stream, TimeUs, Frames };
Field classifyKey(std::string_view key);

struct RowRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Where a streaming builder hands its rows (sawtooth-trace convert: io/snapshot_convert.h).
class RowSink {
 public:
  virtual ~RowSink() = default;
  // Rows [begin, end) of `events`, the file's rows first_row on, all listed in event list `list`
  // (the decoder's handle), every value judged good; times still in the file's microseconds,
  // devices not set yet.
  virtual Status take(const EventStore& events, size_t begin, size_t end, uint64_t first_row, uint64_t list) = 0;
};

// What a streamed snapshot is besides its events (Builder::finishStream).
struct StreamedTables {
  Trace tables;       // devices with their baselines, phases, stacks, segments, meta; no events
  int64_t t0_us = 0;  // the events' times count from here (nanoseconds from t0_us * 1000)
  std::map<uint64_t, DeviceId> list_device;  // event list -> its device
  uint64_t rows = 0;
};

class Builder {
 public:
  // `expected_rows`: room taken up front (untouched pages cost nothing), e.g. from the file size.
  Builder(ReadBudget& budget, Progress* progress, uint64_t expected_rows = 0);
  ~Builder();

  // A new event row (all fields absent); false when a limit stops it (error() says which).
  bool newRow(uint64_t& row);
  void setField(uint64_t row, Field field, const pickle::Value& value, const pickle::Document& doc);
  // The same for an integer value of addr, size, stream or time_us: the common case, inline.
  void setInt(uint64_t row, Field field, int64_t value) {
    if (row < base_) return lateWrite();
    row -= base_;
    EventStore::Columns c = events_.columns();
    uint8_t state = kOk;
    switch (field) {
      case Field::Addr:
        c.addr[row] = static_cast<uint64_t>(value);
        if (value < 0) state = kTooBig;
        break;
      case Field::Size:
        c.size[row] = value;
        if (value < 0) state = kNegative;
        break;
      case Field::Stream:
        c.stream[row] = static_cast<uint64_t>(value);
        if (value < 0) state = kTooBig;
        break;
      case Field::TimeUs:
        c.t_ns[row] = value;
        if (value < -kMaxAbsTimeUs || value > kMaxAbsTimeUs) state = kTooBig;
        break;
      default: return;
    }
    setState(row, field, state);
  }
  void setStack(uint64_t row, uint32_t stack);
  uint64_t rowCount() const { return events_.size(); }

  // Frames and stacks, interned once each (the table's limits apply: false and error()).
  bool internFrame(const pickle::Value* name, const pickle::Value* file, const pickle::Value* line,
                   const pickle::Document& doc, uint32_t& id);
  bool internStack(std::span<const uint32_t> frames, uint32_t& id);
  // A generic frames list or frame dict, remembered by container so that a list the memo shares
  // among many events is read once. The container is frozen (a later change stops the parse).
  bool genericStack(const pickle::Value& frames, const pickle::Document& doc, uint32_t& id);
  bool genericFrame(const pickle::Value& frame, const pickle::Document& doc, uint32_t& id);

  // The rows of device `device`, in the file's order; called in the order of device_traces.
  void addDeviceRows(DeviceId device, std::span<const RowRange> rows);
  // The snapshot lists its segments (possibly none): the baseline is then reconstructed.
  void setHasSegments() { has_segments_ = true; }
  void addSegmentTotals(DeviceId device, int64_t total_size, int64_t allocated);
  // One segment with its blocks, for the allocator replay (counted against the budget), and what
  // was odd in it (snapshot_segments.h).
  bool addSegment(SnapshotSegment segment);
  std::string& segmentWarnings() { return segment_warnings_; }
  void addAnnotation(std::string name, bool start, DeviceId device, int64_t time_us);
  void setMeta(std::string key, std::string value) { meta_[std::move(key)] = std::move(value); }

  // Judges every event, then moves them into the trace in order.
  Result<Trace> finish();

  // Streaming (before the first row): each row goes to `sink` once the file has listed it in an
  // event list, and only the rows not listed yet are held. A file that lists its events otherwise
  // than PyTorch writes them (out of the order they were made, twice, never, changed after, or a
  // value to judge) stops with notStreamable() saying why: read it whole instead.
  void streamTo(RowSink* sink) { sink_ = sink; }
  bool streaming() const { return sink_ != nullptr; }
  bool listed(uint64_t list, uint64_t row);
  void setListDevice(uint64_t list, DeviceId device) { list_device_[list] = device; }
  const std::string& notStreamable() const { return not_streamable_; }
  Result<StreamedTables> finishStream();

  const std::string& error() const { return error_; }
  ReadBudget& budget() { return budget_; }

 private:
  // Each field's state in a row: 3 bits per field in a 16-bit word.
  enum : uint8_t { kAbsent = 0, kOk = 1, kWrongKind = 2, kTooBig = 3, kNegative = 4, kUnknownAction = 5 };
  // Times become nanoseconds since the first one. Bounding them keeps every difference times
  // 1000 inside 64 bits; the bound (about the year 2116 in Unix microseconds) is far past any clock.
  static constexpr int64_t kMaxAbsTimeUs = INT64_MAX / 2000;
  static constexpr int shiftOf(Field f) {
    switch (f) {
      case Field::Addr: return 3;
      case Field::Size: return 6;
      case Field::Stream: return 9;
      case Field::TimeUs: return 12;
      default: return 0;
    }
  }
  void setState(uint64_t row, Field field, uint8_t state) {
    const int shift = shiftOf(field);
    status_[row] = static_cast<uint16_t>((status_[row] & ~(7u << shift)) | (unsigned{state} << shift));
  }
  static uint8_t stateOf(uint16_t status, Field f) { return (status >> shiftOf(f)) & 7; }

  struct Annotation {
    std::string name;
    bool start = false;
    DeviceId device = 0;
    int64_t time_us = 0;
  };
  struct DeviceRows {
    DeviceId device = 0;
    std::vector<RowRange> ranges;
  };
  static constexpr uint16_t kAllOk = kOk | kOk << 3 | kOk << 6 | kOk << 9 | kOk << 12;
  static constexpr uint64_t kStreamRows = 65536;  // rows handed on at a time
  bool fail(std::string message);
  bool cannotStream(std::string why);
  void lateWrite() {
    if (not_streamable_.empty()) not_streamable_ = "an event is changed after the file listed it";
  }
  bool flushListed();
  uint32_t internString(const pickle::Value* v, const pickle::Document& doc);
  Status judgeAndCount(uint64_t& kept, bool& in_place, std::string& warnings);
  Status placeEvents(Trace& trace, uint64_t kept, bool in_place);
  void buildPhases(Trace& trace, int64_t t0_us, int64_t end_ns);

  ReadBudget& budget_;
  Progress* progress_;
  // The rows as created: the trace's own columns (t_ns holds time_us until finish()), and each
  // row's field states. In the usual file the rows are already in the trace's order.
  EventStore events_;
  std::vector<uint16_t> status_;
  uint64_t charged_rows_ = 0;
  std::unordered_map<uint64_t, std::string> unknown_action_text_;  // by row
  struct KnownText {
    const char* data;
    uint32_t size;
    uint8_t code;
  };
  std::vector<KnownText> known_actions_;
  std::vector<DeviceRows> order_;
  std::vector<Annotation> annotations_;
  std::map<DeviceId, int64_t> final_allocated_, final_reserved_;
  std::map<DeviceId, int64_t> net_allocated_, net_reserved_;  // the trace's own events
  std::unordered_map<uint64_t, std::string> big_text_;          // integers past 64 bits, by row and field
  bool has_segments_ = false;
  std::vector<SnapshotSegment> segments_;
  std::string segment_warnings_;
  std::map<std::string, std::string> meta_;
  StackTable stacks_;
  std::vector<uint32_t> generic_ids_;  // by container index: interned frame or stack id + 1
  std::unordered_map<uint64_t, uint32_t> string_ids_;  // by where a string's bytes lie
  uint64_t string_bytes_ = 0;                          // new strings' bytes, not yet counted
  std::vector<uint32_t> frame_ids_;
  std::string error_;
  // Streaming: rows before base_ were handed on; rows [base_, next_listed_) are listed, in runs
  // of one list each, and wait for the next hand-over.
  RowSink* sink_ = nullptr;
  uint64_t base_ = 0;
  uint64_t next_listed_ = 0;
  struct ListedRun {
    uint64_t list;
    uint64_t count;
  };
  std::vector<ListedRun> listed_;
  std::map<uint64_t, std::pair<int64_t, int64_t>> net_by_list_;  // allocated, reserved
  std::map<uint64_t, DeviceId> list_device_;
  int64_t t_min_us_ = std::numeric_limits<int64_t>::max(), t_max_us_ = std::numeric_limits<int64_t>::min();
  std::string not_streamable_;
};

}  // namespace sawtooth::snapshot
