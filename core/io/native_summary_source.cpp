#include "core/io/native_summary_source.h"

#include <algorithm>

#include <fmt/format.h>

#include <chrono>

#include "core/io/native_schema_check.h"

namespace sawtooth::native {
namespace {

using namespace summary;

// Beyond this many points a summary row is not one Sawtooth wrote (and node numbers would overflow).
constexpr int64_t kMaxPoints = int64_t{1} << 44;

template <typename E>
E enumOf(int64_t v, int count, E fallback) {
  return v >= 0 && v < count ? static_cast<E>(v) : fallback;
}

Status done(const sql::Statement& st) { return st.failed() ? Status(Error{st.error()}) : Status(Ok{}); }

}  // namespace

Result<std::unique_ptr<FileSummarySource>> FileSummarySource::open(const SummaryPlace& place, const ReadLimits& limits) {
  ReadBudget budget(limits);
  auto guard = makeGuard(budget, nullptr);
  auto events_source = planOpen(place.events, limits);
  if (!events_source) return events_source.error();
  auto events = openSource(*events_source, guard, limits);
  if (!events) return events.error();
  auto present = checkSchema(*events);
  if (!present) return present.error();
  std::optional<sql::Database> summaries;
  std::optional<Source> summaries_source;
  if (place.summaries != place.events) {
    auto s = planOpen(place.summaries, limits);
    if (!s) return s.error();
    auto db = openSource(*s, guard, limits);
    if (!db) return db.error();
    auto checked = checkSchema(*db, SchemaOf::Summaries);
    if (!checked) return checked.error();
    summaries.emplace(std::move(*db));
    summaries_source = std::move(*s);
  } else {
    for (const std::string& table : summaryTables())
      if (!present->count(table)) return Error{fmt::format("{}: has no summaries ({} is missing)", place.events, table)};
  }
  auto source = std::unique_ptr<FileSummarySource>(
      new FileSummarySource(place, guard, std::move(*events_source), std::move(*events), std::move(summaries)));
  source->summaries_source_ = std::move(summaries_source);
  if (Status st = source->prepare(); !st) return st.error();
  return source;
}

void FileSummarySource::setQueryDeadline(double seconds) {
  guard_->deadline = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

Status FileSummarySource::prepare() {
  sql::Database& s = summaryDb();
  const std::tuple<sql::Statement*, sql::Database*, const char*> preps[] = {
      {&series_, &s, "SELECT device, series, axis, start_value, points, last_value FROM summary_series"},
      {&axes_, &s, "SELECT device, axis, points, sealed_t, pending_from_seq FROM summary_axes"},
      {&nodes_, &s,
       "SELECT node, min_value, max_value, last_value, min_first FROM summary_nodes WHERE device = ? AND series = ? AND "
       "level = ? AND node BETWEEN ? AND ? ORDER BY node"},
      {&axis_nodes_, &s,
       "SELECT node, points, first_seq, last_seq, t_first, t_last FROM summary_axis_nodes WHERE device = ? AND axis = ? "
       "AND level = ? AND node BETWEEN ? AND ? ORDER BY node"},
      {&allocator_events_, &events_,
       "SELECT seq, t_ns, action, size, category, device FROM events WHERE seq BETWEEN ? AND ? AND device = ? AND "
       "source = 0 ORDER BY seq"},
      {&allocator_events_all_, &events_,
       "SELECT seq, t_ns, action, size, category, device FROM events WHERE seq BETWEEN ? AND ? AND source = 0 ORDER BY seq"},
      {&spans_, &s,
       "SELECT id, begin_ns, end_ns, open, first_point, end_point, peak_allocated, peak_point, peak_seq, peak_t, "
       "reserved_at_peak, max_reserved, categorised, at_peak_unknown, at_peak_parameter, at_peak_gradient, "
       "at_peak_optimizer_state, at_peak_input, at_peak_activation, at_peak_temporary, at_peak_autograd_detail FROM "
       "summary_spans WHERE device = ? AND kind = ? AND id < ? ORDER BY id DESC"},
      // Two subqueries: SQLite answers min() or max() alone from the key, both at once by a scan.
      {&span_ids_, &s,
       "SELECT (SELECT min(id) FROM summary_spans WHERE device = ?1 AND kind = ?2), (SELECT max(id) FROM summary_spans "
       "WHERE device = ?1 AND kind = ?2)"},
      {&span_at_, &s,
       "SELECT id, begin_ns FROM summary_spans WHERE device = ? AND kind = ? AND id >= ? ORDER BY id LIMIT 1"},
      {&span_reach_from_, &s,
       "SELECT id, end_ns - begin_ns, open FROM summary_spans WHERE device = ? AND kind = ? AND id >= ? ORDER BY id"},
      {&checkpoint_, &s,
       "SELECT position, seq FROM summary_checkpoints WHERE device = ? AND position <= ? ORDER BY position DESC LIMIT 1"},
      {&checkpoint_segments_, &s,
       "SELECT address, total_size, stream, small_pool, expandable, pool_id_a, pool_id_b, stack FROM "
       "summary_checkpoint_segments WHERE device = ? AND position = ? ORDER BY address"},
      {&checkpoint_blocks_, &s,
       "SELECT address, segment, size, requested_size, state, stack, alloc_event, size_max FROM "
       "summary_checkpoint_blocks WHERE device = ? AND position = ? ORDER BY address"},
      {&segment_stored_, &s,
       "SELECT 1 FROM summary_checkpoint_segments WHERE device = ? AND position <= ? LIMIT 1"},
      {&count_, &events_, "SELECT max(seq) FROM events"},
      {&phase_begin_, &events_, "SELECT begin_ns FROM phases WHERE id = ?"},
      {&phase_name_, &events_, "SELECT name FROM phases WHERE id = ?"},
      {&phases_from_, &events_,
       "SELECT name, kind, device, run_id, begin_ns, end_ns FROM phases WHERE id >= ? AND id < ? ORDER BY id LIMIT ?"},
      {&phase_count_, &events_, "SELECT max(id) FROM phases"},
      {&module_calls_, &events_,
       "SELECT module, pass, run, begin_ns, end_ns FROM module_calls WHERE begin_ns >= ? AND begin_ns < ? ORDER BY "
       "begin_ns, rowid"},
  };
  const bool has_phases = events_.hasTable("phases");
  const bool has_calls = events_.hasTable("module_calls");
  // Files of format 1 have no module and pass columns.
  has_modules_ = events_.prepare("SELECT module, pass FROM events LIMIT 0").ok();
  const std::string columns = std::string("SELECT seq, t_ns, device, source, action, addr, size, stream, category, phase, "
                                          "stack, run") + (has_modules_ ? ", ifnull(module, -1), ifnull(pass, 0)" : "") +
                              " FROM events WHERE seq BETWEEN ? AND ?";
  for (auto [target, sql] : {std::pair{&events_all_, columns + " ORDER BY seq"},
                             std::pair{&events_of_, columns + " AND device = ? AND source = ? ORDER BY seq"}}) {
    auto st = events_.prepare(sql);
    if (!st) return st.error();
    *target = std::move(*st);
  }
  for (const auto& [target, db, sql] : preps) {
    if (!has_phases && (target == &phase_begin_ || target == &phase_name_ || target == &phases_from_ || target == &phase_count_)) continue;
    if (!has_calls && target == &module_calls_) continue;
    auto st = db->prepare(sql);
    if (!st) return st.error();
    *target = std::move(*st);
  }
  return Ok{};
}

Result<std::vector<SeriesRow>> FileSummarySource::seriesRows() {
  std::vector<SeriesRow> out;
  while (series_.step()) {
    SeriesRow r{static_cast<DeviceId>(series_.int64(0)), static_cast<int>(series_.int64(1)),
                static_cast<int>(series_.int64(2)), series_.int64(3), series_.int64(4), series_.int64(5)};
    if (r.points < 0 || r.points > kMaxPoints || r.axis < 0 || r.axis > kReservedCounterAxis)
      return Error{fmt::format("{}: summary_series row of series {} is not one Sawtooth writes", place_.summaries, r.series)};
    out.push_back(r);
  }
  Status st = done(series_);
  series_.reset();
  if (!st) return st.error();
  return out;
}

Result<std::vector<AxisRow>> FileSummarySource::axisRows() {
  std::vector<AxisRow> out;
  while (axes_.step()) {
    AxisRow r{static_cast<DeviceId>(axes_.int64(0)), static_cast<int>(axes_.int64(1)), axes_.int64(2),
              axes_.isNull(3) ? INT64_MIN : axes_.int64(3),
              axes_.isNull(4) ? UINT64_MAX : static_cast<uint64_t>(axes_.int64(4))};
    if (r.points < 0 || r.points > kMaxPoints)
      return Error{fmt::format("{}: summary_axes row of axis {} is not one Sawtooth writes", place_.summaries, r.axis)};
    out.push_back(r);
  }
  Status st = done(axes_);
  axes_.reset();
  if (!st) return st.error();
  return out;
}

Status FileSummarySource::nodes(DeviceId device, int series, int level, int64_t first, int64_t last,
                                std::vector<std::pair<int64_t, NodeValues>>& out) {
  out.clear();
  nodes_.bind(1, int64_t{device}).bind(2, int64_t{series}).bind(3, int64_t{level}).bind(4, first).bind(5, last);
  while (nodes_.step())
    out.emplace_back(nodes_.int64(0), NodeValues{nodes_.int64(1), nodes_.int64(2), nodes_.int64(3), nodes_.int64(4) != 0});
  Status st = done(nodes_);
  nodes_.reset();
  return st;
}

Status FileSummarySource::axisNodes(DeviceId device, int axis, int level, int64_t first, int64_t last,
                                    std::vector<std::pair<int64_t, AxisNode>>& out) {
  out.clear();
  axis_nodes_.bind(1, int64_t{device}).bind(2, int64_t{axis}).bind(3, int64_t{level}).bind(4, first).bind(5, last);
  while (axis_nodes_.step())
    out.emplace_back(axis_nodes_.int64(0),
                     AxisNode{axis_nodes_.int64(1), static_cast<uint64_t>(axis_nodes_.int64(2)),
                              static_cast<uint64_t>(axis_nodes_.int64(3)), axis_nodes_.int64(4), axis_nodes_.int64(5)});
  Status st = done(axis_nodes_);
  axis_nodes_.reset();
  return st;
}

Status FileSummarySource::events(uint64_t first, uint64_t last, std::optional<DeviceId> device,
                                 std::optional<sawtooth::Source> source, std::vector<EventRow>& out) {
  out.clear();
  const bool filtered = device && source;
  sql::Statement& st = filtered ? events_of_ : events_all_;
  st.bind(1, static_cast<int64_t>(first)).bind(2, static_cast<int64_t>(std::min<uint64_t>(last, INT64_MAX)));
  if (filtered) st.bind(3, int64_t{*device}).bind(4, static_cast<int64_t>(*source));
  while (st.step()) {
    EventRow r;
    r.seq = static_cast<uint64_t>(st.int64(0));
    Event& e = r.event;
    e.t_ns = st.int64(1);
    e.device = static_cast<DeviceId>(st.int64(2));
    e.source = enumOf(st.int64(3), kSourceCount, sawtooth::Source::Host);
    e.action = enumOf(st.int64(4), kActionCount, Action::Snapshot);
    e.addr = static_cast<uint64_t>(st.int64(5));
    e.size = st.int64(6);
    e.stream = static_cast<uint64_t>(st.int64(7));
    e.category = enumOf(st.int64(8), kCategoryCount, Category::Unknown);
    e.phase = st.isNull(9) ? kNoPhase : static_cast<uint32_t>(st.int64(9));
    e.stack = st.isNull(10) ? kNoStack : static_cast<uint32_t>(st.int64(10));
    e.run = st.isNull(11) ? kNoRun : static_cast<uint16_t>(st.int64(11));
    if (has_modules_) {  // checked where used: a module past the tree is outside modules
      const int64_t module = st.int64(12);
      e.module = module < 0 || module >= int64_t{UINT32_MAX} ? kNoModule : static_cast<uint32_t>(module);
      e.pass = enumOf(st.int64(13), kPassCount, Pass::None);
    }
    if (device && !filtered && e.device != *device) continue;
    if (source && !filtered && e.source != *source) continue;
    out.push_back(r);
  }
  Status s = done(st);
  st.reset();
  return s;
}

Status FileSummarySource::allocatorEvents(std::optional<DeviceId> device, uint64_t first, uint64_t last,
                                          std::vector<AllocatorRow>& out) {
  out.clear();
  sql::Statement& st = device ? allocator_events_ : allocator_events_all_;
  st.bind(1, static_cast<int64_t>(first)).bind(2, static_cast<int64_t>(std::min<uint64_t>(last, INT64_MAX)));
  if (device) st.bind(3, int64_t{*device});
  while (st.step())
    out.push_back(AllocatorRow{static_cast<uint64_t>(st.int64(0)), st.int64(1), enumOf(st.int64(2), kActionCount, Action::Snapshot),
                               st.int64(3), enumOf(st.int64(4), kCategoryCount, Category::Unknown),
                               static_cast<DeviceId>(st.int64(5))});
  Status s = done(st);
  st.reset();
  return s;
}

Status FileSummarySource::phases(int64_t t0, int64_t t1, size_t max, std::vector<Phase>& out) {
  out.clear();
  if (!events_.hasTable("phases")) return Ok{};
  auto scalar = [&](sql::Statement& st, int64_t arg, bool bind, int64_t& value) -> Status {
    if (bind) st.bind(1, arg);
    value = INT64_MIN;
    if (st.step() && !st.isNull(0)) value = st.int64(0);
    Status s = done(st);
    st.reset();
    return s;
  };
  int64_t last = 0;
  if (Status st = scalar(phase_count_, 0, false, last); !st) return st;
  if (last == INT64_MIN) return Ok{};
  // The first phase beginning at or after a time, by a binary search over ids (begin times follow
  // ids); both ends, so that the read below stops at the window's end rather than the table's.
  auto firstAtOrAfter = [&](int64_t t, int64_t& id) -> Status {
    int64_t lo = 0, hi = last + 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      int64_t begin = 0;
      if (Status st = scalar(phase_begin_, mid, true, begin); !st) return st;
      if (begin != INT64_MIN && begin < t) lo = mid + 1;
      else hi = mid;
    }
    id = lo;
    return Ok{};
  };
  int64_t first = 0, end = 0;
  if (Status st = firstAtOrAfter(t0, first); !st) return st;
  if (Status st = firstAtOrAfter(t1, end); !st) return st;
  // Those that began a little before and may still run, then the ones inside.
  constexpr int64_t kLookBack = 4096;
  phases_from_.bind(1, std::max<int64_t>(0, first - kLookBack)).bind(2, end).bind(3, static_cast<int64_t>(max + kLookBack));
  while (phases_from_.step() && out.size() < max) {
    if (phases_from_.int64(5) < t0) continue;
    Phase p;
    p.name = std::string(phases_from_.text(0));
    p.kind = phases_from_.text(1) == "annotation" ? PhaseKind::Annotation : PhaseKind::Phase;
    p.device = phases_from_.isNull(2) ? kAllDevices : static_cast<DeviceId>(phases_from_.int64(2));
    p.run = phases_from_.isNull(3) ? kNoRun : static_cast<uint16_t>(phases_from_.int64(3));
    p.begin_ns = phases_from_.int64(4);
    p.end_ns = phases_from_.int64(5);
    out.push_back(std::move(p));
  }
  Status s = done(phases_from_);
  phases_from_.reset();
  return s;
}

// Spans begin in the order of their ids (a recording opens them in time order), so those that meet
// [t0, t1) are found by id, not by reading every row: the first to begin at or after t1 bounds them
// from above, and reading back from it stops once a span began earlier than t0 by more than the
// longest span lasts. A file whose spans are out of order gets a partial answer, never a slow one.
Result<int64_t> FileSummarySource::longestSpan(DeviceId device, SpanKind kind) {
  SpanReach& reach = span_reach_[{device, static_cast<int>(kind)}];
  span_reach_from_.bind(1, int64_t{device}).bind(2, static_cast<int64_t>(kind)).bind(3, reach.recheck_from);
  int64_t next = reach.recheck_from, first_open = INT64_MAX;
  while (span_reach_from_.step()) {
    const int64_t id = span_reach_from_.int64(0);
    reach.longest_ns = std::max(reach.longest_ns, span_reach_from_.int64(1));
    if (span_reach_from_.int64(2) != 0) first_open = std::min(first_open, id);
    next = id == INT64_MAX ? id : id + 1;
  }
  Status st = done(span_reach_from_);
  span_reach_from_.reset();
  if (!st) return st.error();
  reach.recheck_from = std::min(first_open, next);
  return reach.longest_ns;
}

Result<std::optional<int64_t>> FileSummarySource::firstSpanBeginningAtOrAfter(DeviceId device, SpanKind kind, int64_t t) {
  span_ids_.bind(1, int64_t{device}).bind(2, static_cast<int64_t>(kind));
  std::optional<std::pair<int64_t, int64_t>> ids;
  if (span_ids_.step() && !span_ids_.isNull(0)) ids.emplace(span_ids_.int64(0), span_ids_.int64(1));
  Status st = done(span_ids_);
  span_ids_.reset();
  if (!st) return st.error();
  if (!ids) return std::optional<int64_t>();
  // The first row at or after an id, by binary search over the id range.
  auto rowFrom = [&](int64_t id) -> Result<std::optional<std::pair<int64_t, int64_t>>> {
    span_at_.bind(1, int64_t{device}).bind(2, static_cast<int64_t>(kind)).bind(3, id);
    std::optional<std::pair<int64_t, int64_t>> row;
    if (span_at_.step()) row.emplace(span_at_.int64(0), span_at_.int64(1));
    Status s = done(span_at_);
    span_at_.reset();
    if (!s) return s.error();
    return row;
  };
  int64_t lo = ids->first, hi = ids->second;
  std::optional<int64_t> found;
  while (lo <= hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    auto row = rowFrom(mid);
    if (!row) return row.error();
    if (!*row || (*row)->first > hi) {  // no row in [mid, hi]
      hi = mid - 1;
      continue;
    }
    if ((*row)->second >= t) {
      found = (*row)->first;
      if (mid == ids->first) break;
      hi = mid - 1;
    } else {
      lo = (*row)->first + 1;
    }
  }
  return found;
}

Result<int64_t> FileSummarySource::spanCount(DeviceId device, SpanKind kind) {
  auto st = summaryDb().prepare("SELECT count(*) FROM summary_spans WHERE device = ? AND kind = ?");
  if (!st) return st.error();
  st->bind(1, int64_t{device}).bind(2, static_cast<int64_t>(kind));
  const int64_t n = st->step() ? st->int64(0) : 0;
  if (st->failed()) return Error{st->error()};
  return n;
}

Status FileSummarySource::spans(DeviceId device, SpanKind kind, int64_t t0, int64_t t1, std::vector<SpanRow>& out) {
  out.clear();
  auto longest = longestSpan(device, kind);
  if (!longest) return longest.error();
  auto end = firstSpanBeginningAtOrAfter(device, kind, t1);
  if (!end) return end.error();
  const int64_t stop_before = t0 < INT64_MIN + *longest ? INT64_MIN : t0 - *longest;
  spans_.bind(1, int64_t{device}).bind(2, static_cast<int64_t>(kind)).bind(3, end->value_or(INT64_MAX));
  while (spans_.step()) {
    SpanRow r;
    r.device = device;
    r.kind = kind;
    r.id = spans_.int64(0);
    r.begin_ns = spans_.int64(1);
    r.end_ns = spans_.int64(2);
    if (r.begin_ns < stop_before) break;
    if (r.end_ns < t0 || r.begin_ns >= t1) continue;
    r.open = spans_.int64(3) != 0;
    r.first_point = spans_.int64(4);
    r.end_point = spans_.int64(5);
    r.peak_allocated = spans_.int64(6);
    r.peak_point = spans_.int64(7);
    r.peak_seq = static_cast<uint64_t>(spans_.int64(8));
    r.peak_t = spans_.int64(9);
    r.reserved_at_peak = spans_.int64(10);
    r.max_reserved = spans_.int64(11);
    r.categorised = spans_.int64(12) != 0;
    for (int c = 0; c < kCategoryCount; ++c) r.at_peak[static_cast<size_t>(c)] = spans_.int64(13 + c);
    out.push_back(r);
  }
  Status st = done(spans_);
  spans_.reset();
  std::reverse(out.begin(), out.end());
  return st;
}

Result<std::optional<SummarySource::Checkpoint>> FileSummarySource::checkpointAtOrBefore(DeviceId device, int64_t position) {
  checkpoint_.bind(1, int64_t{device}).bind(2, position);
  std::optional<Checkpoint> out;
  if (checkpoint_.step()) {
    out.emplace();
    out->position = checkpoint_.int64(0);
    out->seq = checkpoint_.isNull(1) ? kBeforeTrace : static_cast<uint64_t>(checkpoint_.int64(1));
  }
  Status st = done(checkpoint_);
  checkpoint_.reset();
  if (!st) return st.error();
  if (!out) return out;
  AllocatorState& state = out->state;
  state.device = static_cast<int16_t>(device);
  state.position = out->position - 1;
  state.event = out->seq;
  checkpoint_segments_.bind(1, int64_t{device}).bind(2, out->position);
  while (checkpoint_segments_.step()) {
    SegmentProps props;
    props.size = checkpoint_segments_.int64(1);
    props.stream = static_cast<uint64_t>(checkpoint_segments_.int64(2));
    props.small_pool = checkpoint_segments_.int64(3) != 0;
    props.expandable = checkpoint_segments_.int64(4) != 0;
    props.pool_id = {checkpoint_segments_.int64(5), checkpoint_segments_.int64(6)};
    props.stack = checkpoint_segments_.isNull(7) ? kNoStack : static_cast<uint32_t>(checkpoint_segments_.int64(7));
    state.segments.push_back(segmentView(static_cast<uint64_t>(checkpoint_segments_.int64(0)), props));
  }
  st = done(checkpoint_segments_);
  checkpoint_segments_.reset();
  if (!st) return st.error();
  checkpoint_blocks_.bind(1, int64_t{device}).bind(2, out->position);
  while (checkpoint_blocks_.step()) {
    BlockView b;
    b.address = static_cast<uint64_t>(checkpoint_blocks_.int64(0));
    b.size = checkpoint_blocks_.int64(2);
    b.requested_size = checkpoint_blocks_.int64(3);
    b.state = enumOf(checkpoint_blocks_.int64(4), 3, BlockState::Inactive);
    b.stack = checkpoint_blocks_.isNull(5) ? kNoStack : static_cast<uint32_t>(checkpoint_blocks_.int64(5));
    b.alloc_event = checkpoint_blocks_.isNull(6) ? kBeforeTrace : static_cast<uint64_t>(checkpoint_blocks_.int64(6));
    if (!checkpoint_blocks_.isNull(7)) {
      b.size_inferred = true;
      b.size_max = checkpoint_blocks_.int64(7);
    }
    if (checkpoint_blocks_.isNull(1)) {
      state.outside_segments.push_back(b);
      continue;
    }
    const auto segment = static_cast<uint64_t>(checkpoint_blocks_.int64(1));
    auto it = std::lower_bound(state.segments.begin(), state.segments.end(), segment,
                               [](const SegmentView& s, uint64_t a) { return s.address < a; });
    if (it != state.segments.end() && it->address == segment) it->blocks.push_back(b);
    else state.outside_segments.push_back(b);
  }
  st = done(checkpoint_blocks_);
  checkpoint_blocks_.reset();
  if (!st) return st.error();
  finishState(state);
  return out;
}

Result<bool> FileSummarySource::segmentStoredAtOrBefore(DeviceId device, int64_t position) {
  segment_stored_.bind(1, int64_t{device}).bind(2, position);
  const bool found = segment_stored_.step();
  Status st = done(segment_stored_);
  segment_stored_.reset();
  if (!st) return st.error();
  return found;
}

Status FileSummarySource::moduleCalls(int64_t t0, int64_t t1, size_t max, std::vector<ModuleCall>& out) {
  out.clear();
  if (!events_.hasTable("module_calls")) return Ok{};
  sql::Statement& st = module_calls_;
  st.bind(1, t0).bind(2, t1);
  while (st.step()) {
    if (out.size() > max) break;
    ModuleCall c;
    const int64_t module = st.isNull(0) ? -1 : st.int64(0);
    c.module = module < 0 || module >= int64_t{UINT32_MAX} ? kNoModule : static_cast<uint32_t>(module);
    c.pass = enumOf(st.int64(1), kPassCount, Pass::None);
    c.run = st.isNull(2) ? kNoRun : static_cast<uint16_t>(st.int64(2));
    c.begin_ns = st.int64(3);
    c.end_ns = st.int64(4);
    out.push_back(c);
  }
  Status s = done(st);
  st.reset();
  return s;
}

Result<std::optional<std::string>> FileSummarySource::phaseName(uint32_t id) {
  std::optional<std::string> name;
  if (!events_.hasTable("phases")) return name;
  phase_name_.bind(1, int64_t{id});
  if (phase_name_.step()) name = std::string(phase_name_.text(0));
  Status st = done(phase_name_);
  phase_name_.reset();
  if (!st) return st.error();
  return name;
}

Result<std::optional<SummarySource::Ooms>> FileSummarySource::ooms(size_t max) {
  sql::Database& db = summaryDb();
  if (!db.hasTable("summary_ooms")) return std::optional<Ooms>();
  Ooms out;
  auto count = db.prepare("SELECT count(*) FROM summary_ooms");
  if (!count) return count.error();
  if (count->step()) out.count = static_cast<uint64_t>(std::max<int64_t>(0, count->int64(0)));
  if (count->failed()) return Error{count->error()};
  auto rows = db.prepare("SELECT device, seq FROM summary_ooms ORDER BY seq, device LIMIT ?");
  if (!rows) return rows.error();
  rows->bind(1, static_cast<int64_t>(std::min<size_t>(max, INT64_MAX)));
  while (rows->step()) {
    const int64_t device = rows->int64(0), seq = rows->int64(1);
    if (device < INT16_MIN || device > INT16_MAX || seq < 0)
      return Error{fmt::format("{}: summary_ooms holds device {} and event {}, which no trace has", db.path(), device, seq)};
    out.first.emplace_back(static_cast<DeviceId>(device), static_cast<uint64_t>(seq));
  }
  if (Status st = done(*rows); !st) return st.error();
  return std::optional<Ooms>(std::move(out));
}

Result<std::optional<std::vector<summary::CategoryPeaksRow>>> FileSummarySource::categoryPeaks() {
  using Rows = std::vector<summary::CategoryPeaksRow>;
  sql::Database& db = summaryDb();
  if (!db.hasTable("summary_category_peaks")) return std::optional<Rows>();
  auto st = db.prepare(
      "SELECT device, exact, categorised, peak_unknown, peak_parameter, peak_gradient, peak_optimizer_state, peak_input, "
      "peak_activation, peak_temporary, peak_autograd_detail FROM summary_category_peaks ORDER BY device LIMIT 65537");
  if (!st) return st.error();
  Rows rows;
  while (st->step()) {
    const int64_t device = st->int64(0), exact = st->int64(1), categorised = st->int64(2);
    if (device < INT16_MIN || device > INT16_MAX || (exact != 0 && exact != 1) || (categorised != 0 && categorised != 1))
      return Error{fmt::format("{}: summary_category_peaks holds device {} with exact {} and categorised {}, which no "
                               "trace has",
                               db.path(), device, exact, categorised)};
    summary::CategoryPeaksRow row{static_cast<DeviceId>(device), exact == 1, categorised == 1, {}};
    for (int c = 0; c < kCategoryCount; ++c) row.peak[static_cast<size_t>(c)] = st->int64(3 + c);
    rows.push_back(row);
  }
  if (Status s = done(*st); !s) return s.error();
  return std::optional<Rows>(std::move(rows));
}

Result<uint64_t> FileSummarySource::eventCount() {
  uint64_t n = 0;
  if (count_.step() && !count_.isNull(0)) n = static_cast<uint64_t>(count_.int64(0)) + 1;
  Status st = done(count_);
  count_.reset();
  if (!st) return st.error();
  return n;
}

}  // namespace sawtooth::native
