#pragma once
// The summaries' rows in a .sawtooth file (the summary_* tables of io/native_schema.h), written
// through the builder's SummaryStore interface inside the writer's open transaction: the rows of
// a batch commit with its events, so whatever a crash leaves, the summaries cover exactly the
// committed events.

#include <memory>

#include "core/analysis/summary_builder.h"
#include "core/io/sqlite_db.h"

namespace sawtooth::native {

class SqlSummaryStore : public summary::SummaryStore {
 public:
  // The summary tables of `db`; leaves are recomputed from the events of `events` (the same
  // file, or the one a cache of summaries is for). Both must outlive the store.
  static Result<std::unique_ptr<SqlSummaryStore>> create(sql::Database& db, sql::Database& events);

  Status putSeries(const summary::SeriesRow& row) override;
  Status putAxis(const summary::AxisRow& row) override;
  Status putAxisNode(DeviceId device, int axis, int level, int64_t node, const summary::AxisNode& values) override;
  Status putNode(DeviceId device, int series, int level, int64_t node, const summary::NodeValues& values) override;
  Status putSpan(const summary::SpanRow& row) override;
  Status putIndex(const summary::IndexRow& row) override;
  Status putOom(DeviceId device, uint64_t seq) override;
  Status putCategoryPeaks(const summary::CategoryPeaksRow& row) override;
  Status putCheckpoint(DeviceId device, int64_t position, uint64_t seq, const AllocatorState& state) override;
  Result<summary::NodeValues> node(DeviceId device, int series, int level, int64_t node) override;
  Result<summary::AxisNode> axisNode(DeviceId device, int axis, int level, int64_t node) override;
  Status shiftNodes(DeviceId device, int series, int level, int64_t first, int64_t last, int64_t delta) override;
  Status copySeries(DeviceId device, int from, int to, int64_t points) override;
  Status shiftSpans(DeviceId device, int64_t from_point, Category from, Category to, int64_t bytes) override;
  Status shiftSpan(DeviceId device, summary::SpanKind kind, int64_t id, Category from, Category to,
                   int64_t bytes) override;
  Status leafEvents(DeviceId device, uint64_t first_seq, uint64_t last_seq,
                    std::vector<summary::LeafEvent>& out) override;

 private:
  explicit SqlSummaryStore(sql::Database& db) : db_(db) {}
  sql::Database& db_;
  sql::Statement series_, axis_, axis_node_, node_, span_, index_, oom_, category_peaks_, checkpoint_, checkpoint_segment_,
      checkpoint_block_, read_node_, read_axis_node_, shift_nodes_, shift_span_, leaf_events_;
};

}  // namespace sawtooth::native
