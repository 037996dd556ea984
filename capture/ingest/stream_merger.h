#pragma once
// Puts the records of one recorded process back in time order. They arrive on several streams
// with different delays: the shim's phase markers and tags as they happen, the allocator
// tracker's events every few tens of milliseconds, the CPU profiler's allocations in chunks.
// Each stream is in time order; a stream that sends watermarks promises that nothing older
// will follow; one that never does is released once it is `hold_back` old. A record is released
// when every open stream has passed its time, so the writer sees one ordered stream and
// attributes phases and categories as if everything had happened in one thread.

#include <cstdint>
#include <deque>
#include <limits>
#include <map>

#include "capture/writer/capture_record.h"

namespace sawtooth::record {

class StreamMerger {
 public:
  using Key = uint32_t;
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::min();

  explicit StreamMerger(int64_t hold_back_ns) : hold_back_ns_(hold_back_ns) {}

  void add(Key stream, capture::CaptureRecord record);
  // Every record of `stream` before t has been added.
  void watermark(Key stream, int64_t t);
  // As watermark, and the stream holds nothing back until it sends again.
  void idle(Key stream, int64_t t);
  // The stream ends (its connection closed): what it sent is released by the others' times.
  void close(Key stream);

  // Releases, oldest first, the records no open stream can still precede. `now` is the clock
  // the records are stamped with.
  template <typename Sink>
  size_t release(int64_t now, Sink&& sink) {
    return drain(limit(now), sink);
  }
  template <typename Sink>
  size_t releaseAll(Sink&& sink) {
    return drain(std::numeric_limits<int64_t>::max(), sink);
  }
  // Releases the oldest records, whatever the streams' watermarks say, until `keep` are left: a
  // stream whose watermark is stuck must not hold the others' records without end.
  template <typename Sink>
  size_t releaseOldest(size_t keep, Sink&& sink) {
    return drain(std::numeric_limits<int64_t>::max(), sink, keep);
  }

  size_t pending() const { return pending_; }
  size_t streams() const { return streams_.size(); }
  bool has(Key stream) const { return streams_.count(stream) != 0; }
  // Records that arrived after newer ones had been released (the writer still places them by
  // their time, but their phase may be the one current when they were released).
  uint64_t late() const { return late_; }
  int64_t releasedUntil() const { return released_until_; }

 private:
  struct Stream {
    std::deque<capture::CaptureRecord> records;
    int64_t watermark = kNever;
    int64_t last_t = kNever;
    bool explicit_watermarks = false;
    bool idle = false;
  };
  int64_t limit(int64_t now) const;

  template <typename Sink>
  size_t drain(int64_t limit, Sink& sink, size_t keep = 0) {
    size_t n = 0;
    while (pending_ > keep) {
      Stream* best = nullptr;
      for (auto& [key, s] : streams_)
        if (!s.records.empty() && s.records.front().t_ns <= limit &&
            (!best || s.records.front().t_ns < best->records.front().t_ns))
          best = &s;
      if (!best) break;
      capture::CaptureRecord r = std::move(best->records.front());
      best->records.pop_front();
      --pending_;
      if (r.t_ns > released_until_) released_until_ = r.t_ns;
      sink(std::move(r));
      ++n;
    }
    if (limit != std::numeric_limits<int64_t>::max() && limit > released_until_) released_until_ = limit;
    if (keep > 0) return n;
    // Closed streams disappear once empty.
    for (auto it = closed_.begin(); it != closed_.end();) {
      auto s = streams_.find(*it);
      if (s == streams_.end() || s->second.records.empty()) {
        if (s != streams_.end()) streams_.erase(s);
        it = closed_.erase(it);
      } else {
        ++it;
      }
    }
    return n;
  }

  int64_t hold_back_ns_;
  std::map<Key, Stream> streams_;
  std::deque<Key> closed_;
  size_t pending_ = 0;
  uint64_t late_ = 0;
  int64_t released_until_ = kNever;
};

}  // namespace sawtooth::record
