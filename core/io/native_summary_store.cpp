#include "core/io/native_summary_store.h"

#include <iterator>
#include <string>

#include <fmt/format.h>

#include "core/io/native_schema.h"
#include "core/io/native_summaries.h"

namespace sawtooth::native {
namespace {

using namespace summary;

int64_t asInt(uint64_t v) { return static_cast<int64_t>(v); }

// summary_spans' live bytes per category at the peak, in Category's order.
constexpr const char* kAtPeakColumns[] = {"at_peak_unknown",         "at_peak_parameter", "at_peak_gradient",
                                          "at_peak_optimizer_state", "at_peak_input",     "at_peak_activation",
                                          "at_peak_temporary",       "at_peak_autograd_detail"};
static_assert(std::size(kAtPeakColumns) == kCategoryCount);

// One span's live bytes at the peak, each category moved by its parameter (?4 on).
std::string shiftSpanSql() {
  std::string set;
  for (int c = 0; c < kCategoryCount; ++c)
    set += fmt::format("{}{} = {} + ?{}", c ? ", " : "", kAtPeakColumns[c], kAtPeakColumns[c], 4 + c);
  return fmt::format("UPDATE summary_spans SET {} WHERE device = ?1 AND kind = ?2 AND id = ?3", set);
}

}  // namespace

Result<std::unique_ptr<SqlSummaryStore>> SqlSummaryStore::create(sql::Database& db, sql::Database& events) {
  // A file (or a cache) of format 3 from before the tables added later gains them when its summaries
  // are written again.
  for (const std::string& table : laterSummaryTables())
    if (!db.hasTable(table))
      if (Status st = db.exec(createTableSql(*findTable(table))); !st) return st.error();
  auto store = std::unique_ptr<SqlSummaryStore>(new SqlSummaryStore(db));
  struct Prep {
    sql::Statement* target;
    const char* sql;
  };
  const std::string shift_span = shiftSpanSql();
  const Prep preps[] = {
      {&store->series_, "INSERT OR REPLACE INTO summary_series VALUES(?, ?, ?, ?, ?, ?)"},
      {&store->axis_, "INSERT OR REPLACE INTO summary_axes VALUES(?, ?, ?, ?, ?)"},
      {&store->axis_node_, "INSERT OR REPLACE INTO summary_axis_nodes VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&store->node_, "INSERT OR REPLACE INTO summary_nodes VALUES(?, ?, ?, ?, ?, ?, ?, ?)"},
      {&store->span_,
       "INSERT OR REPLACE INTO summary_spans VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&store->index_, "INSERT OR REPLACE INTO summary_event_index VALUES(?, ?, ?, ?, ?)"},
      {&store->oom_, "INSERT OR REPLACE INTO summary_ooms VALUES(?, ?)"},
      {&store->category_peaks_, "INSERT OR REPLACE INTO summary_category_peaks VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&store->checkpoint_, "INSERT OR REPLACE INTO summary_checkpoints VALUES(?, ?, ?)"},
      {&store->checkpoint_segment_,
       "INSERT OR REPLACE INTO summary_checkpoint_segments VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&store->checkpoint_block_, "INSERT OR REPLACE INTO summary_checkpoint_blocks VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&store->read_node_,
       "SELECT min_value, max_value, last_value, min_first FROM summary_nodes WHERE device = ? AND series = ? AND "
       "level = ? AND node = ?"},
      {&store->read_axis_node_,
       "SELECT points, first_seq, last_seq, t_first, t_last FROM summary_axis_nodes WHERE device = ? AND axis = ? AND "
       "level = ? AND node = ?"},
      {&store->shift_nodes_,
       "UPDATE summary_nodes SET min_value = min_value + ?1, max_value = max_value + ?1, last_value = last_value + ?1 "
       "WHERE device = ?2 AND series = ?3 AND level = ?4 AND node BETWEEN ?5 AND ?6"},
      {&store->shift_span_, shift_span.c_str()},
      {&store->leaf_events_,
       "SELECT seq, action, size, category FROM events WHERE seq BETWEEN ? AND ? AND device = ? AND source = 0 ORDER BY "
       "seq"},
  };
  for (const auto& p : preps) {
    auto st = (p.target == &store->leaf_events_ ? events : db).prepare(p.sql);
    if (!st) return st.error();
    *p.target = std::move(*st);
  }
  return store;
}

Status SqlSummaryStore::putSeries(const SeriesRow& r) {
  return series_.bind(1, int64_t{r.device})
      .bind(2, int64_t{r.series})
      .bind(3, int64_t{r.axis})
      .bind(4, r.start)
      .bind(5, r.points)
      .bind(6, r.last)
      .run();
}

Status SqlSummaryStore::putAxis(const AxisRow& r) {
  axis_.bind(1, int64_t{r.device}).bind(2, int64_t{r.axis}).bind(3, r.points);
  if (r.sealed_t == INT64_MIN) axis_.bindNull(4);
  else axis_.bind(4, r.sealed_t);
  if (r.pending_from_seq == UINT64_MAX) axis_.bindNull(5);
  else axis_.bind(5, asInt(r.pending_from_seq));
  return axis_.run();
}

Status SqlSummaryStore::putAxisNode(DeviceId device, int axis, int level, int64_t node, const AxisNode& v) {
  return axis_node_.bind(1, int64_t{device})
      .bind(2, int64_t{axis})
      .bind(3, int64_t{level})
      .bind(4, node)
      .bind(5, v.points)
      .bind(6, asInt(v.first_seq))
      .bind(7, asInt(v.last_seq))
      .bind(8, v.t_first)
      .bind(9, v.t_last)
      .run();
}

Status SqlSummaryStore::putNode(DeviceId device, int series, int level, int64_t node, const NodeValues& v) {
  return node_.bind(1, int64_t{device})
      .bind(2, int64_t{series})
      .bind(3, int64_t{level})
      .bind(4, node)
      .bind(5, v.min)
      .bind(6, v.max)
      .bind(7, v.last)
      .bind(8, int64_t{v.min_first})
      .run();
}

Status SqlSummaryStore::putSpan(const SpanRow& r) {
  sql::Statement& s = span_;
  s.bind(1, int64_t{r.device}).bind(2, static_cast<int64_t>(r.kind)).bind(3, r.id).bind(4, r.begin_ns).bind(5, r.end_ns);
  s.bind(6, int64_t{r.open}).bind(7, r.first_point).bind(8, r.end_point).bind(9, r.peak_allocated).bind(10, r.peak_point);
  if (r.peak_point < 0) s.bindNull(11).bindNull(12);
  else s.bind(11, asInt(r.peak_seq)).bind(12, r.peak_t);
  s.bind(13, r.reserved_at_peak).bind(14, r.max_reserved).bind(15, int64_t{r.categorised});
  for (int c = 0; c < kCategoryCount; ++c) s.bind(16 + c, r.at_peak[static_cast<size_t>(c)]);
  return s.run();
}

Status SqlSummaryStore::putIndex(const IndexRow& r) {
  return index_.bind(1, r.chunk)
      .bind(2, asInt(r.first_seq))
      .bind(3, asInt(r.last_seq))
      .bind(4, r.t_min)
      .bind(5, r.t_max)
      .run();
}

Status SqlSummaryStore::putOom(DeviceId device, uint64_t seq) {
  return oom_.bind(1, int64_t{device}).bind(2, asInt(seq)).run();
}

Status SqlSummaryStore::putCategoryPeaks(const summary::CategoryPeaksRow& row) {
  category_peaks_.bind(1, int64_t{row.device}).bind(2, int64_t{row.exact}).bind(3, int64_t{row.categorised});
  for (int c = 0; c < kCategoryCount; ++c) category_peaks_.bind(4 + c, row.peak[static_cast<size_t>(c)]);
  return category_peaks_.run();
}

Status SqlSummaryStore::putCheckpoint(DeviceId device, int64_t position, uint64_t seq, const AllocatorState& state) {
  checkpoint_.bind(1, int64_t{device}).bind(2, position);
  if (seq == kBeforeTrace) checkpoint_.bindNull(3);
  else checkpoint_.bind(3, asInt(seq));
  if (Status st = checkpoint_.run(); !st) return st;
  auto block = [&](const BlockView& b, const SegmentView* segment) -> Status {
    sql::Statement& s = checkpoint_block_;
    s.bind(1, int64_t{device}).bind(2, position).bind(3, asInt(b.address));
    if (segment) s.bind(4, asInt(segment->address));
    else s.bindNull(4);
    s.bind(5, b.size).bind(6, b.requested_size).bind(7, static_cast<int64_t>(b.state));
    if (b.stack == kNoStack) s.bindNull(8);
    else s.bind(8, int64_t{b.stack});
    if (b.alloc_event == kBeforeTrace) s.bindNull(9);
    else s.bind(9, asInt(b.alloc_event));
    if (b.size_inferred) s.bind(10, b.size_max);
    else s.bindNull(10);
    return s.run();
  };
  for (const SegmentView& seg : state.segments) {
    sql::Statement& s = checkpoint_segment_;
    s.bind(1, int64_t{device}).bind(2, position).bind(3, asInt(seg.address)).bind(4, seg.total_size);
    s.bind(5, asInt(seg.stream)).bind(6, int64_t{seg.small_pool}).bind(7, int64_t{seg.expandable});
    s.bind(8, seg.pool_id.first).bind(9, seg.pool_id.second);
    if (seg.stack == kNoStack) s.bindNull(10);
    else s.bind(10, int64_t{seg.stack});
    if (Status st = s.run(); !st) return st;
    for (const BlockView& b : seg.blocks)
      if (Status st = block(b, &seg); !st) return st;
  }
  for (const BlockView& b : state.outside_segments)
    if (Status st = block(b, nullptr); !st) return st;
  return Ok{};
}

Result<NodeValues> SqlSummaryStore::node(DeviceId device, int series, int level, int64_t node) {
  sql::Statement& s = read_node_;
  s.bind(1, int64_t{device}).bind(2, int64_t{series}).bind(3, int64_t{level}).bind(4, node);
  const bool found = s.step();
  NodeValues v;
  if (found) v = NodeValues{s.int64(0), s.int64(1), s.int64(2), s.int64(3) != 0};
  const std::string error = s.error();
  s.reset();
  if (!error.empty()) return Error{error};
  if (!found)
    return Error{fmt::format("{}: no summary node {} of level {} for series {} of device {}", db_.path(), node, level,
                             series, device)};
  return v;
}

Result<AxisNode> SqlSummaryStore::axisNode(DeviceId device, int axis, int level, int64_t node) {
  sql::Statement& s = read_axis_node_;
  s.bind(1, int64_t{device}).bind(2, int64_t{axis}).bind(3, int64_t{level}).bind(4, node);
  const bool found = s.step();
  AxisNode v;
  if (found)
    v = AxisNode{s.int64(0), static_cast<uint64_t>(s.int64(1)), static_cast<uint64_t>(s.int64(2)), s.int64(3), s.int64(4)};
  const std::string error = s.error();
  s.reset();
  if (!error.empty()) return Error{error};
  if (!found)
    return Error{fmt::format("{}: no summary node {} of level {} for axis {} of device {}", db_.path(), node, level, axis,
                             device)};
  return v;
}

Status SqlSummaryStore::shiftNodes(DeviceId device, int series, int level, int64_t first, int64_t last, int64_t delta) {
  return shift_nodes_.bind(1, delta)
      .bind(2, int64_t{device})
      .bind(3, int64_t{series})
      .bind(4, int64_t{level})
      .bind(5, first)
      .bind(6, last)
      .run();
}

Status SqlSummaryStore::copySeries(DeviceId device, int from, int to, int64_t /*points: all are copied*/) {
  return db_.exec(fmt::format(
      "INSERT OR REPLACE INTO summary_nodes SELECT device, {}, level, node, min_value, max_value, last_value, min_first "
      "FROM summary_nodes WHERE device = {} AND series = {}",
      to, device, from));
}

Status SqlSummaryStore::shiftSpans(DeviceId device, int64_t from_point, Category from, Category to, int64_t bytes) {
  return db_.exec(fmt::format("UPDATE summary_spans SET {0} = {0} - ({2}), {1} = {1} + ({2}) WHERE device = {3} AND "
                              "peak_point >= {4}",
                              kAtPeakColumns[static_cast<size_t>(from)], kAtPeakColumns[static_cast<size_t>(to)], bytes,
                              device, from_point));
}

Status SqlSummaryStore::shiftSpan(DeviceId device, SpanKind kind, int64_t id, Category from, Category to,
                                  int64_t bytes) {
  sql::Statement& s = shift_span_;
  s.bind(1, int64_t{device}).bind(2, static_cast<int64_t>(kind)).bind(3, id);
  for (int c = 0; c < kCategoryCount; ++c) {
    int64_t delta = 0;
    if (c == static_cast<int>(from)) delta -= bytes;
    if (c == static_cast<int>(to)) delta += bytes;
    s.bind(4 + c, delta);
  }
  return s.run();
}

Status SqlSummaryStore::leafEvents(DeviceId device, uint64_t first_seq, uint64_t last_seq, std::vector<LeafEvent>& out) {
  out.clear();
  sql::Statement& s = leaf_events_;
  s.bind(1, asInt(first_seq)).bind(2, asInt(last_seq)).bind(3, int64_t{device});
  while (s.step()) {
    const int64_t action = s.int64(1), category = s.int64(3);
    out.push_back(LeafEvent{static_cast<uint64_t>(s.int64(0)),
                            action >= 0 && action < kActionCount ? static_cast<Action>(action) : Action::Snapshot,
                            s.int64(2),
                            category >= 0 && category < kCategoryCount ? static_cast<Category>(category) : Category::Unknown});
  }
  const std::string error = s.error();
  s.reset();
  if (!error.empty()) return Error{error};
  return Ok{};
}

}  // namespace sawtooth::native
