// The allocator's state when a snapshot's trace began, streamed from a converted file's events
// (io/native_allocator_start.h), against AllocatorHistory over the whole trace in memory.

#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

#include "core/analysis/allocator_history.h"
#include "core/io/native_allocator_start.h"
#include "core/io/native_event_reader.h"
#include "core/io/native_format.h"
#include "core/io/sqlite_db.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

// Every field of a state, in words: two states are the same when their texts are.
std::string describe(const AllocatorState& s) {
  std::ostringstream out;
  out << fmt::format(
      "device {} position {} event {} reserved {} allocated {} "
      "active {} requested {} free {} largest {} "
      "external {} waste {}\n",
      s.device, s.position, s.event, s.reserved, s.allocated_bytes, s.active_bytes, s.requested_bytes, s.free_bytes,
      s.largest_free_block, s.external_fragmentation, s.internal_waste);
  auto block = [&](const BlockView& b) {
    out << fmt::format(
        "  block {:#x} size {} max {} inferred {} requested {} "
        "state {} stack {} event {} category {}\n",
        b.address, b.size, b.size_max, b.size_inferred, b.requested_size, static_cast<int>(b.state), b.stack,
        b.alloc_event, static_cast<int>(b.category));
  };
  for (const SegmentView& g : s.segments) {
    out << fmt::format(
        "segment {:#x} size {} stream {} small {} expandable {} "
        "pool {},{} stack {}\n",
        g.address, g.total_size, g.stream, g.small_pool, g.expandable, g.pool_id.first, g.pool_id.second, g.stack);
    for (const BlockView& b : g.blocks) block(b);
  }
  for (const BlockView& b : s.outside_segments) block(b);
  for (const PoolFree& p : s.pools)
    out << fmt::format("pool small {} stream {} reserved {} free {} largest {} segments {}\n", p.small_pool, p.stream,
                       p.reserved, p.free_bytes, p.largest_free_block, p.segments);
  return out.str();
}

TEST(NativeAllocatorStart, StreamedFromTheFileIsTheStateTheWholeTraceGives) {
  size_t start_blocks = 0;  // blocks alive when the traces began, over every fixture: not none
  for (const char* fixture :
       {"anatomy_adam_snapshot.pickle", "oom_mlp_snapshot_protocol2.pickle.gz", "h200_allocator_expandable.pickle",
        "h200_allocator_oom.pickle", "h200_allocator_roundup.pickle", "h200_allocator_window.pickle",
        "synthetic_window_streams.pickle"}) {
    SCOPED_TRACE(fixture);
    auto trace = loadTrace(test::dataPath(fixture));
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    ASSERT_TRUE(trace->segments_known);
    const std::string path = test::tempPath(std::string(fixture) + ".start.sawtooth");
    ASSERT_TRUE(writeNative(*trace, path).ok());

    EventReadOptions without_events;
    without_events.events = false;
    auto tables = readNative(path, nullptr, without_events);
    ASSERT_TRUE(tables.ok()) << tables.error().message;
    EXPECT_TRUE(tables->events.empty());
    auto db = sql::Database::open(path, sql::Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto starts = streamedAllocatorStarts(*db, *tables);
    ASSERT_TRUE(starts.ok()) << starts.error().message;

    ReplayOptions replay;
    replay.series = false;
    replay.checkpoints = false;
    size_t compared = 0;
    for (DeviceId device : trace->deviceIds()) {
      auto history = AllocatorHistory::build(*trace, static_cast<int16_t>(device), replay);
      ASSERT_TRUE(history.ok()) << history.error().message;
      auto found = starts->find(device);
      ASSERT_NE(found, starts->end()) << "device " << device;
      const AllocatorState expected = history->stateAfter(-1);
      EXPECT_EQ(describe(found->second.first), describe(expected)) << "device " << device;
      EXPECT_EQ(found->second.second.expandable_segments, history->settings().expandable_segments);
      ++compared;
      for (const SegmentView& s : expected.segments)
        for (const BlockView& b : s.blocks) start_blocks += b.active();
    }
    EXPECT_EQ(compared, starts->size());
    EXPECT_GT(compared, 0u);
  }
  EXPECT_GT(start_blocks, 0u);
}

}  // namespace
}  // namespace sawtooth
