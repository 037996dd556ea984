#include "capture/ingest/stream_merger.h"

#include <algorithm>

namespace sawtooth::record {

void StreamMerger::add(Key key, capture::CaptureRecord record) {
  Stream& s = streams_[key];
  // A stream out of order (a sender's bug, or clocks read on two threads) is kept in order here.
  if (record.t_ns < s.last_t) record.t_ns = s.last_t;
  s.last_t = record.t_ns;
  if (record.t_ns < released_until_) ++late_;
  s.idle = false;
  s.records.push_back(std::move(record));
  ++pending_;
}

void StreamMerger::watermark(Key key, int64_t t) {
  Stream& s = streams_[key];
  s.explicit_watermarks = true;
  s.idle = false;
  s.watermark = std::max(s.watermark, t);
}

void StreamMerger::idle(Key key, int64_t t) {
  watermark(key, t);
  streams_[key].idle = true;
}

void StreamMerger::close(Key key) {
  auto it = streams_.find(key);
  if (it == streams_.end()) return;
  it->second.idle = true;
  it->second.explicit_watermarks = true;
  it->second.watermark = std::numeric_limits<int64_t>::max();
  if (std::find(closed_.begin(), closed_.end(), key) == closed_.end()) closed_.push_back(key);
}

int64_t StreamMerger::limit(int64_t now) const {
  int64_t limit = now - hold_back_ns_;
  for (const auto& [key, s] : streams_) {
    if (s.idle) continue;
    if (s.explicit_watermarks) limit = std::min(limit, s.watermark == kNever ? kNever : s.watermark - 1);
  }
  return limit;
}

}  // namespace sawtooth::record
