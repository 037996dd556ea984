#include "core/io/native_summaries.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/analysis/step_alignment.h"
#include "core/analysis/summary_builder.h"
#include "core/io/native_summary_store.h"
#include "core/model/meta_keys.h"

namespace sawtooth::native {
namespace {

using namespace summary;

// A value read from a file is data: out-of-range enumerations become harmless ones.
template <typename E>
E enumOf(int64_t v, int count, E fallback) {
  return v >= 0 && v < count ? static_cast<E>(v) : fallback;
}

Result<int64_t> single(sql::Database& db, const std::string& query, int64_t if_null) {
  auto st = db.prepare(query);
  if (!st) return st.error();
  int64_t v = if_null;
  if (st->step() && !st->isNull(0)) v = st->int64(0);
  if (st->failed()) return Error{st->error()};
  return v;
}

// One pass over the events of `db` into `builder` (set up here from the file's devices, phases,
// settings and counters).
Result<uint64_t> summarise(sql::Database& db, SummaryBuilder& builder, const RebuildOptions& options, Progress* progress) {
  {
    Trace settings_of;
    auto meta = db.prepare("SELECT key, value FROM meta WHERE key LIKE 'allocator.%'");
    if (!meta) return meta.error();
    while (meta->step()) settings_of.meta[std::string(meta->text(0))] = std::string(meta->text(1));
    if (meta->failed()) return Error{meta->error()};
    builder.setAllocatorSettings(allocatorSettings(settings_of));
  }
  if (db.hasTable("devices")) {
    auto devices = db.prepare("SELECT device, baseline_allocated, baseline_reserved FROM devices");
    if (!devices) return devices.error();
    while (devices->step())
      builder.setBaseline(static_cast<DeviceId>(devices->int64(0)), devices->int64(1), devices->int64(2));
    if (devices->failed()) return Error{devices->error()};
  }
  for (const auto& [device, start] : options.allocator_starts) builder.setAllocatorStart(device, start.first, start.second);

  // The phases (and from them the steps), before any event.
  std::vector<Phase> phases;
  if (db.hasTable("phases")) {
    auto st = db.prepare("SELECT id, name, kind, device, begin_ns, end_ns FROM phases ORDER BY id");
    if (!st) return st.error();
    while (st->step()) {
      Phase p;
      p.name = std::string(st->text(1));
      p.kind = st->text(2) == "annotation" ? PhaseKind::Annotation : PhaseKind::Phase;
      p.device = st->isNull(3) ? kAllDevices : static_cast<DeviceId>(st->int64(3));
      p.begin_ns = st->int64(4);
      p.end_ns = st->int64(5);
      const int64_t id = st->int64(0);
      if (id < 0 || id > UINT32_MAX) continue;
      builder.addPhase(static_cast<uint32_t>(id), p, false);
      // Kept for finding the steps: only the names that begin or end one matter (a day's
      // recording has millions of phases).
      const bool marks_steps = (p.kind == PhaseKind::Phase && p.name == "forward") ||
                               p.name.starts_with("ProfilerStep#") || p.name.starts_with("Optimizer.step#");
      if (!marks_steps) p.name.clear();
      phases.push_back(std::move(p));
    }
    if (st->failed()) return Error{st->error()};
  }
  auto first_t = single(db, "SELECT t_ns FROM events ORDER BY seq LIMIT 1", 0);
  if (!first_t) return first_t.error();
  builder.setStepStarts(findStepStarts(phases, *first_t).t_ns);
  phases = {};

  // A source's own totals, merged into the events by the event each follows.
  struct CounterPoint {
    uint64_t after_event;
    DeviceId device;
    bool allocated;
    int64_t value;
  };
  std::vector<CounterPoint> counters;
  if (db.hasTable("counters")) {
    auto st = db.prepare(
        "SELECT device, name, after_event, value FROM counters WHERE name IN ('allocated', 'reserved') ORDER BY "
        "device, name, rowid");
    if (!st) return st.error();
    uint64_t last = 0;
    std::pair<int64_t, std::string> current{INT64_MIN, {}};
    while (st->step()) {
      std::pair<int64_t, std::string> key{st->int64(0), std::string(st->text(1))};
      const auto after = static_cast<uint64_t>(st->int64(2));
      if (key != current) current = key;
      else if (after < last) continue;  // points stay in event order (core/analysis/series.cpp)
      last = after;
      counters.push_back({after, static_cast<DeviceId>(key.first), key.second == "allocated", st->int64(3)});
    }
    if (st->failed()) return Error{st->error()};
    std::stable_sort(counters.begin(), counters.end(),
                     [](const CounterPoint& a, const CounterPoint& b) { return a.after_event < b.after_event; });
  }

  auto last_seq = single(db, "SELECT max(seq) FROM events", -1);
  if (!last_seq) return last_seq.error();
  const auto total = static_cast<uint64_t>(*last_seq + 1);
  auto rows = db.prepare("SELECT seq, t_ns, device, source, action, addr, size, stream, category FROM events ORDER BY seq");
  if (!rows) return rows.error();
  size_t next_counter = 0;
  uint64_t done = 0;
  while (rows->step()) {
    const auto seq = static_cast<uint64_t>(rows->int64(0));
    Event e;
    e.t_ns = rows->int64(1);
    e.device = static_cast<DeviceId>(rows->int64(2));
    e.source = enumOf(rows->int64(3), kSourceCount, Source::Host);
    e.action = enumOf(rows->int64(4), kActionCount, Action::Snapshot);
    e.addr = static_cast<uint64_t>(rows->int64(5));
    e.size = rows->int64(6);
    e.stream = static_cast<uint64_t>(rows->int64(7));
    e.category = enumOf(rows->int64(8), kCategoryCount, Category::Unknown);
    if (Status st = builder.add(seq, e); !st) return st.error();
    while (next_counter < counters.size() && counters[next_counter].after_event <= seq) {
      const CounterPoint& c = counters[next_counter++];
      if (c.after_event == seq)
        if (Status st = builder.addCounter(c.device, c.allocated, seq, e.t_ns, c.value); !st) return st.error();
    }
    if ((++done & 0xffff) == 0 && progress) {
      if (progress->cancelled()) return Error{"cancelled"};
      progress->report(done, total);
    }
  }
  if (rows->failed()) return Error{rows->error()};
  if (Status st = builder.finish(); !st) return st.error();
  if (builder.stale()) return Error{fmt::format("{}: {}", db.path(), builder.staleReason())};
  return builder.eventsSeen();
}

// Compares what a builder puts with the rows a file holds, counting what differs.
class CheckingStore : public SummaryStore {
 public:
  // A format 3 file from before the out-of-memory index, or the fragmentation series, is checked
  // without them.
  CheckingStore(sql::Database& db, SummaryCheck& check)
      : db_(db),
        check_(check),
        has_ooms_(db.hasTable("summary_ooms")),
        has_category_peaks_(db.hasTable("summary_category_peaks")) {}

  Status prepare() {
    auto fragmentation = single(db_, fmt::format("SELECT count(*) FROM summary_series WHERE series BETWEEN {} AND {}",
                                                 int{kReservedMinusAllocated}, int{kLargestFreeBlock}), 0);
    if (!fragmentation) return fragmentation.error();
    has_fragmentation_ = *fragmentation > 0;
    const std::pair<sql::Statement*, const char*> preps[] = {
        {&series_, "SELECT axis, start_value, points, last_value FROM summary_series WHERE device = ? AND series = ?"},
        {&axis_, "SELECT points, sealed_t, pending_from_seq FROM summary_axes WHERE device = ? AND axis = ?"},
        {&axis_node_,
         "SELECT points, first_seq, last_seq, t_first, t_last FROM summary_axis_nodes WHERE device = ? AND axis = ? AND "
         "level = ? AND node = ?"},
        {&node_,
         "SELECT min_value, max_value, last_value, min_first FROM summary_nodes WHERE device = ? AND series = ? AND "
         "level = ? AND node = ?"},
        {&span_,
         "SELECT begin_ns, end_ns, open, first_point, end_point, peak_allocated, peak_point, peak_seq, peak_t, "
         "reserved_at_peak, max_reserved, at_peak_unknown, at_peak_parameter, at_peak_gradient, "
         "at_peak_optimizer_state, at_peak_input, at_peak_activation, at_peak_temporary, at_peak_autograd_detail FROM "
         "summary_spans WHERE device = ? AND kind = ? AND id = ?"},
        {&index_, "SELECT first_seq, last_seq, t_min, t_max FROM summary_event_index WHERE chunk = ?"},
        {has_ooms_ ? &oom_ : nullptr, "SELECT 0 FROM summary_ooms WHERE device = ? AND seq = ?"},
        {has_category_peaks_ ? &category_peaks_statement_ : nullptr,
         "SELECT exact, categorised, peak_unknown, peak_parameter, peak_gradient, peak_optimizer_state, peak_input, "
         "peak_activation, peak_temporary, peak_autograd_detail FROM summary_category_peaks WHERE device = ?"},
        {&checkpoint_, "SELECT seq, (SELECT count(*) FROM summary_checkpoint_segments s WHERE s.device = c.device AND "
                       "s.position = c.position), (SELECT count(*) FROM summary_checkpoint_blocks b WHERE b.device = "
                       "c.device AND b.position = c.position) FROM summary_checkpoints c WHERE device = ? AND position = ?"},
    };
    for (const auto& [target, sql] : preps) {
      if (!target) continue;
      auto st = db_.prepare(sql);
      if (!st) return st.error();
      *target = std::move(*st);
    }
    return Ok{};
  }

  // Rows the file holds beyond those the events give; the category peaks (written again at each
  // flush) as the events leave them.
  Status countExtra() {
    for (const auto& [device, r] : category_peaks_) {
      std::vector<int64_t> want{r.exact ? 1 : 0, r.categorised ? 1 : 0};
      want.insert(want.end(), r.peak.begin(), r.peak.end());
      // A writer that learnt a category for a point it no longer kept says its peaks are not exact
      // (summary_builder.h), and readers count them from the events: such a row is true to what it
      // says, so only whether the device has categories is compared (a long GPT-2 recording's was
      // reported as disagreeing).
      category_peaks_statement_.bind(1, int64_t{device});
      auto got = read(category_peaks_statement_, want.size());
      if (!got) return got.error();
      const std::string what = fmt::format("the category peaks of device {}", device);
      if (!got->has_value()) differ(what + " is missing");
      else if ((**got)[0] == 0 ? (**got)[1] != want[1] : **got != want) differ(what + " differs");
    }
    const std::pair<const char*, size_t> tables[] = {
        {"summary_series", series_rows_},        {"summary_axes", axis_rows_},     {"summary_axis_nodes", axis_node_rows_},
        {"summary_nodes", node_rows_},           {"summary_spans", span_rows_},    {"summary_event_index", index_rows_},
        {"summary_checkpoints", checkpoint_rows_},    {has_ooms_ ? "summary_ooms" : nullptr, oom_rows_},
        {has_category_peaks_ ? "summary_category_peaks" : nullptr, category_peaks_.size()}};
    for (const auto& [table, expected] : tables) {
      if (!table) continue;
      auto n = single(db_, fmt::format("SELECT count(*) FROM {}", table), 0);
      if (!n) return n.error();
      if (static_cast<size_t>(*n) != expected)
        differ(fmt::format("{} holds {} rows where the events give {}", table, *n, expected));
    }
    return Ok{};
  }

  Status putSeries(const SeriesRow& r) override {
    if (!has_fragmentation_ && isFragmentationSeries(r.series)) return Ok{};
    ++series_rows_;
    series_.bind(1, int64_t{r.device}).bind(2, int64_t{r.series});
    return compare(series_, {r.axis, r.start, r.points, r.last}, fmt::format("series {} of device {}", r.series, r.device));
  }
  Status putAxis(const AxisRow& r) override {
    ++axis_rows_;
    axis_.bind(1, int64_t{r.device}).bind(2, int64_t{r.axis});
    return compare(axis_,
                   {r.points, r.sealed_t == INT64_MIN ? kNull : r.sealed_t,
                    r.pending_from_seq == UINT64_MAX ? kNull : static_cast<int64_t>(r.pending_from_seq)},
                   fmt::format("axis {} of device {}", r.axis, r.device));
  }
  Status putAxisNode(DeviceId device, int axis, int level, int64_t node, const AxisNode& v) override {
    ++axis_node_rows_;
    axis_node_.bind(1, int64_t{device}).bind(2, int64_t{axis}).bind(3, int64_t{level}).bind(4, node);
    return compare(axis_node_,
                   {v.points, static_cast<int64_t>(v.first_seq), static_cast<int64_t>(v.last_seq), v.t_first, v.t_last},
                   fmt::format("node {} of level {} of axis {} of device {}", node, level, axis, device));
  }
  Status putNode(DeviceId device, int series, int level, int64_t node, const NodeValues& v) override {
    if (!has_fragmentation_ && isFragmentationSeries(series)) return Ok{};
    ++node_rows_;
    node_.bind(1, int64_t{device}).bind(2, int64_t{series}).bind(3, int64_t{level}).bind(4, node);
    return compare(node_, {v.min, v.max, v.last, int64_t{v.min_first}},
                   fmt::format("node {} of level {} of series {} of device {}", node, level, series, device));
  }
  Status putSpan(const SpanRow& r) override {
    ++span_rows_;
    span_.bind(1, int64_t{r.device}).bind(2, static_cast<int64_t>(r.kind)).bind(3, r.id);
    std::vector<int64_t> want{r.begin_ns, r.end_ns, int64_t{r.open}, r.first_point, r.end_point, r.peak_allocated,
                              r.peak_point, r.peak_point < 0 ? kNull : static_cast<int64_t>(r.peak_seq),
                              r.peak_point < 0 ? kNull : r.peak_t, r.reserved_at_peak, r.max_reserved};
    for (int64_t v : r.at_peak) want.push_back(v);
    return compare(span_, want,
                   fmt::format("{} {} of device {}", r.kind == SpanKind::Step ? "step" : "phase", r.id, r.device));
  }
  Status putIndex(const IndexRow& r) override {
    ++index_rows_;
    index_.bind(1, r.chunk);
    return compare(index_, {static_cast<int64_t>(r.first_seq), static_cast<int64_t>(r.last_seq), r.t_min, r.t_max},
                   fmt::format("event index chunk {}", r.chunk));
  }
  Status putOom(DeviceId device, uint64_t seq) override {
    if (!has_ooms_) return Ok{};
    ++oom_rows_;
    oom_.bind(1, int64_t{device}).bind(2, static_cast<int64_t>(seq));
    return compare(oom_, {0}, fmt::format("out-of-memory event {} of device {}", seq, device));
  }
  Status putCategoryPeaks(const CategoryPeaksRow& row) override {
    if (has_category_peaks_) category_peaks_[row.device] = row;
    return Ok{};
  }
  Status putCheckpoint(DeviceId device, int64_t position, uint64_t seq, const AllocatorState& state) override {
    ++checkpoint_rows_;
    size_t blocks = state.outside_segments.size();
    for (const SegmentView& s : state.segments) blocks += s.blocks.size();
    checkpoint_.bind(1, int64_t{device}).bind(2, position);
    return compare(checkpoint_,
                   {seq == kBeforeTrace ? kNull : static_cast<int64_t>(seq), static_cast<int64_t>(state.segments.size()),
                    static_cast<int64_t>(blocks)},
                   fmt::format("allocator state at position {} of device {}", position, device));
  }
  Status copySeries(DeviceId device, int from, int to, int64_t points) override {
    // The layer's first nodes are allocated's (already compared): they must be the same rows.
    for (int level = 0; points > 0 && level <= topLevel(points); ++level)
      for (int64_t n = 0; n < points / nodePoints(level); ++n) {
        node_.bind(1, int64_t{device}).bind(2, int64_t{from}).bind(3, int64_t{level}).bind(4, n);
        std::vector<int64_t> want;
        if (node_.step())
          for (int c = 0; c < 4; ++c) want.push_back(node_.int64(c));
        node_.reset();
        ++node_rows_;
        node_.bind(1, int64_t{device}).bind(2, int64_t{to}).bind(3, int64_t{level}).bind(4, n);
        if (Status st = compare(node_, want, fmt::format("node {} of level {} of series {} of device {}", n, level, to,
                                                         device));
            !st)
          return st;
      }
    return Ok{};
  }
  // A file with its categories final has none of these.
  Result<NodeValues> node(DeviceId, int, int, int64_t) override { return Error{"not while checking"}; }
  Result<AxisNode> axisNode(DeviceId, int, int, int64_t) override { return Error{"not while checking"}; }
  Status shiftNodes(DeviceId, int, int, int64_t, int64_t, int64_t) override { return Error{"not while checking"}; }
  Status shiftSpans(DeviceId, int64_t, Category, Category, int64_t) override { return Error{"not while checking"}; }
  Status shiftSpan(DeviceId, SpanKind, int64_t, Category, Category, int64_t) override { return Error{"not while checking"}; }
  Status leafEvents(DeviceId, uint64_t, uint64_t, std::vector<LeafEvent>&) override { return Error{"not while checking"}; }

 private:
  static constexpr int64_t kNull = INT64_MIN;

  void differ(std::string what) {
    if (check_.first_differences.size() < 10) check_.first_differences.push_back(std::move(what));
    ++check_.differences;
  }

  // Compares the statement's one row (bound by the caller) with `want` (kNull: NULL).
  // The first `columns` of the statement's row (none: no row).
  Result<std::optional<std::vector<int64_t>>> read(sql::Statement& st, size_t columns) {
    const bool found = st.step();
    std::vector<int64_t> got;
    if (found)
      for (size_t c = 0; c < columns; ++c) got.push_back(st.isNull(static_cast<int>(c)) ? kNull : st.int64(static_cast<int>(c)));
    const std::string error = st.error();
    st.reset();
    if (!error.empty()) return Error{error};
    if (!found) return std::optional<std::vector<int64_t>>{};
    return std::optional<std::vector<int64_t>>{std::move(got)};
  }

  Status compare(sql::Statement& st, const std::vector<int64_t>& want, const std::string& what) {
    auto got = read(st, want.size());
    if (!got) return got.error();
    if (!got->has_value()) differ(fmt::format("{} is missing", what));
    else if (**got != want) differ(fmt::format("{} differs", what));
    return Ok{};
  }

  sql::Database& db_;
  SummaryCheck& check_;
  bool has_ooms_ = false, has_category_peaks_ = false;
  bool has_fragmentation_ = true;
  std::map<DeviceId, CategoryPeaksRow> category_peaks_;  // the last row of each device
  sql::Statement series_, axis_, axis_node_, node_, span_, index_, oom_, category_peaks_statement_, checkpoint_;
  size_t series_rows_ = 0, axis_rows_ = 0, axis_node_rows_ = 0, node_rows_ = 0, span_rows_ = 0, index_rows_ = 0,
         oom_rows_ = 0, checkpoint_rows_ = 0;
};

}  // namespace

const std::vector<std::string>& summaryTables() {
  static const std::vector<std::string> tables{"summary_series",      "summary_axes",
                                               "summary_axis_nodes",  "summary_nodes",
                                               "summary_spans",       "summary_event_index",
                                               "summary_checkpoints", "summary_checkpoint_segments",
                                               "summary_checkpoint_blocks"};
  return tables;
}

const std::vector<std::string>& laterSummaryTables() {
  static const std::vector<std::string> tables{"summary_ooms", "summary_category_peaks"};
  return tables;
}

Result<uint64_t> rebuildSummaries(sql::Database& events, sql::Database& summaries, const RebuildOptions& options,
                                  Progress* progress) {
  for (const std::string& table : summaryTables())
    if (Status st = summaries.exec(fmt::format("DELETE FROM {}", table)); !st) return st.error();
  for (const std::string& table : laterSummaryTables())
    if (summaries.hasTable(table))
      if (Status st = summaries.exec(fmt::format("DELETE FROM {}", table)); !st) return st.error();
  auto store = SqlSummaryStore::create(summaries, events);
  if (!store) return store.error();
  BuilderOptions builder_options;
  builder_options.checkpoints = options.allocator_checkpoints;
  SummaryBuilder builder(**store, builder_options);
  return summarise(events, builder, options, progress);
}

Result<std::string> quickSummaryCheck(sql::Database& events, sql::Database& summaries) {
  auto covered_text = summaries.prepare(fmt::format("SELECT value FROM meta WHERE key = '{}'", meta::kSummaryEvents));
  if (!covered_text) return covered_text.error();
  std::string covered;
  if (covered_text->step()) covered = std::string(covered_text->text(0));
  if (covered_text->failed()) return Error{covered_text->error()};
  auto last = single(events, "SELECT max(seq) FROM events", -1);
  if (!last) return last.error();
  if (covered.empty()) return std::string("it has no summaries");
  if (covered != std::to_string(*last + 1))
    return fmt::format("its summaries cover {} events where it holds {}", covered, *last + 1);
  // Each series: its top node ends where the series does, over as many points as its axis has.
  auto st = summaries.prepare(
      "SELECT s.device, s.series, s.points, s.last_value, a.points, (SELECT last_value FROM summary_nodes n WHERE "
      "n.device = s.device AND n.series = s.series ORDER BY level DESC, node LIMIT 1) FROM summary_series s LEFT JOIN "
      "summary_axes a ON a.device = s.device AND a.axis = s.axis");
  if (!st) return st.error();
  while (st->step()) {
    const std::string which = fmt::format("series {} of device {}", st->int64(1), st->int64(0));
    if (st->isNull(4) || st->int64(4) != st->int64(2)) return fmt::format("the points of {} are not its axis'", which);
    if (st->int64(2) > 0 && (st->isNull(5) || st->int64(5) != st->int64(3)))
      return fmt::format("the top node of {} does not end where the series does", which);
  }
  if (st->failed()) return Error{st->error()};
  return std::string();
}

Result<SummaryCheck> checkSummaries(sql::Database& events, sql::Database& summaries, const RebuildOptions& options,
                                    Progress* progress) {
  SummaryCheck check;
  auto covered = single(summaries, fmt::format("SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{}'", meta::kSummaryEvents), 0);
  if (!covered) return covered.error();
  check.covered = static_cast<uint64_t>(*covered);
  CheckingStore store(summaries, check);
  if (Status st = store.prepare(); !st) return st.error();
  BuilderOptions builder_options;
  builder_options.checkpoints = options.allocator_checkpoints;
  SummaryBuilder builder(store, builder_options);
  auto seen = summarise(events, builder, options, progress);
  if (!seen) return seen.error();
  check.events = *seen;
  if (Status st = store.countExtra(); !st) return st.error();
  return check;
}

}  // namespace sawtooth::native
