// Records of one process arrive on streams with different delays; the merger hands them on in
// time order once no open stream can still send anything older.

#include <gtest/gtest.h>

#include "capture/ingest/stream_merger.h"

namespace sawtooth::record {
namespace {

capture::CaptureRecord at(int64_t t, uint32_t id = 0) {
  capture::CaptureRecord r;
  r.t_ns = t;
  r.id = id;
  return r;
}

std::vector<int64_t> times(StreamMerger& m, int64_t now) {
  std::vector<int64_t> out;
  m.release(now, [&](capture::CaptureRecord&& r) { out.push_back(r.t_ns); });
  return out;
}

TEST(StreamMerger, WaitsForTheSlowestBatchedStream) {
  StreamMerger m(/*hold_back*/ 10);
  m.watermark(2, 0);  // the tracker: batched, nothing yet
  m.add(1, at(100));  // a marker, sent as it happened
  m.add(1, at(300));
  EXPECT_TRUE(times(m, 1000).empty()) << "the tracker may still send something older";
  m.add(2, at(150));
  m.add(2, at(250));
  m.watermark(2, 280);
  EXPECT_EQ(times(m, 1000), (std::vector<int64_t>{100, 150, 250}));
  m.watermark(2, 400);
  EXPECT_EQ(times(m, 1000), (std::vector<int64_t>{300}));
  EXPECT_EQ(m.pending(), 0u);
  EXPECT_EQ(m.late(), 0u);
}

TEST(StreamMerger, HoldsLiveStreamsBackBriefly) {
  StreamMerger m(50);
  m.add(1, at(100));
  m.add(1, at(180));
  EXPECT_EQ(times(m, 200), (std::vector<int64_t>{100}));
  EXPECT_EQ(times(m, 231), (std::vector<int64_t>{180}));
}

TEST(StreamMerger, IdleAndClosedStreamsDoNotBlock) {
  StreamMerger m(0);
  m.watermark(2, 0);
  m.add(1, at(10));
  EXPECT_TRUE(times(m, 100).empty());
  m.idle(2, 5);
  EXPECT_EQ(times(m, 100), (std::vector<int64_t>{10}));
  m.watermark(3, 0);
  m.add(3, at(120));
  m.add(1, at(130));
  m.close(3);  // its connection ended: what it sent still comes out, in order
  EXPECT_EQ(times(m, 200), (std::vector<int64_t>{120, 130}));
}

TEST(StreamMerger, CountsRecordsThatArriveAfterNewerOnesWentOut) {
  StreamMerger m(0);
  m.add(1, at(100));
  EXPECT_EQ(times(m, 200).size(), 1u);
  m.add(2, at(50));  // a stream that was idle comes back with an older record
  EXPECT_EQ(m.late(), 1u);
  EXPECT_EQ(times(m, 300), (std::vector<int64_t>{50}));
}

TEST(StreamMerger, KeepsOneStreamsOrderAndTiesInArrivalOrder) {
  StreamMerger m(0);
  m.add(1, at(100, 1));
  m.add(1, at(90, 2));  // out of order within a stream: kept after its predecessor
  m.add(2, at(100, 3));
  std::vector<uint32_t> ids;
  m.releaseAll([&](capture::CaptureRecord&& r) { ids.push_back(r.id); });
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 2, 3}));
}

// A stream whose watermark never moves must not hold the others' records without end: beyond a
// budget the oldest go on, in time order, whatever the watermarks say.
TEST(StreamMerger, ReleasesTheOldestBeyondABudget) {
  StreamMerger m(/*hold_back*/ 10);
  m.watermark(1, 5);  // stuck
  for (int64_t t = 10; t < 110; ++t) m.add(2, at(t));
  EXPECT_TRUE(times(m, 1'000'000).empty()) << "stream 1 may still send something older";
  std::vector<int64_t> out;
  EXPECT_EQ(m.releaseOldest(25, [&](capture::CaptureRecord&& r) { out.push_back(r.t_ns); }), 75u);
  EXPECT_EQ(m.pending(), 25u);
  ASSERT_EQ(out.size(), 75u);
  EXPECT_EQ(out.front(), 10);
  EXPECT_EQ(out.back(), 84);
  EXPECT_TRUE(m.has(1) && m.has(2) && !m.has(3));
  EXPECT_EQ(m.streams(), 2u);
}

}  // namespace
}  // namespace sawtooth::record
