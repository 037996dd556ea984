#include "core/io/event_pages.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <sqlite3.h>

#include "core/io/native_format.h"

namespace sawtooth {
namespace {

// The columns of a page's query: seq first, then what readEventRows reads.
std::string pageSql(bool modules, const char* where) {
  return fmt::format("SELECT seq, {} FROM events WHERE {} ORDER BY seq", eventColumnsSql(modules), where);
}

}  // namespace

Result<std::shared_ptr<const EventPages>> EventPages::open(const std::string& path, const ReadLimits& limits) {
  std::shared_ptr<EventPages> pages(new EventPages());
  pages->path_ = path;
  pages->limits_ = limits;
  EventReadOptions no_events;
  no_events.events = false;
  no_events.bulk_tables = false;
  auto tables = readNative(path, nullptr, limits, no_events);
  if (!tables) return tables.error();
  auto source = native::planOpen(path, limits);
  if (!source) return source.error();
  pages->source_ = std::move(*source);
  ReadBudget budget(limits);
  auto db = pages->connect(budget, nullptr);
  if (!db) return db.error();
  auto phases = readPhaseNames(*db, path, budget);
  if (!phases) return phases.error();
  pages->phases_ = std::make_shared<const PhaseNames>(std::move(*phases));
  pages->columns_.phase_count = pages->phases_->size();
  pages->columns_.stack_count = tables->stacks.stackCount();
  pages->columns_.module_count = tables->modules.size();
  pages->columns_.modules = db->prepare("SELECT module, pass FROM events LIMIT 0").ok();
  // Two subqueries: SQLite finds a lone min() or max() of the rowid at the b-tree's end, but scans
  // every row for the two in one SELECT.
  auto range = db->prepare("SELECT (SELECT min(seq) FROM events), (SELECT max(seq) FROM events)");
  if (!range) return range.error();
  if (range->step() && !range->isNull(0)) {
    pages->first_seq_ = range->int64(0);
    pages->events_ = static_cast<uint64_t>(range->int64(1) - range->int64(0)) + 1;
  }
  if (range->failed()) return Error{fmt::format("{}: {}", path, range->error())};
  pages->tables_ = std::make_shared<const Trace>(std::move(*tables));
  return std::shared_ptr<const EventPages>(std::move(pages));
}

Result<PhaseNames> EventPages::readPhaseNames(sql::Database& db, const std::string& path, ReadBudget& budget) {
  PhaseNames out;
  if (!db.hasTable("phases")) return out;
  auto st = db.prepare("SELECT id, name FROM phases ORDER BY id");
  if (!st) return st.error();
  std::unordered_map<std::string, uint32_t> index;
  while (st->step()) {
    if (st->type(0) != SQLITE_INTEGER || st->type(1) != SQLITE_TEXT)
      return Error{fmt::format("{}: phases row {}: the id or the name is not what Sawtooth writes", path, out.size())};
    if (st->int64(0) != static_cast<int64_t>(out.size()))
      return Error{fmt::format("{}: phase ids are not dense (id {})", path, st->int64(0))};
    const std::string_view name = st->text(1);
    auto [it, added] = index.try_emplace(std::string(name), static_cast<uint32_t>(out.names.size()));
    if (added) {
      if (!budget.take(name.size() + sizeof(std::string)))
        return Error{fmt::format("{}: {}", path, budget.memoryError("the phases' names").message)};
      out.names.emplace_back(name);
    }
    if (!budget.take(sizeof(uint32_t))) return Error{fmt::format("{}: {}", path, budget.memoryError("the phases").message)};
    out.of.push_back(it->second);
  }
  if (st->failed()) return Error{fmt::format("{}: {}", path, st->error())};
  return out;
}

Result<sql::Database> EventPages::connect(const ReadBudget& budget, const Progress* progress) const {
  return native::openSource(source_, native::makeGuard(budget, progress), limits_);
}

Result<EventPageRows> EventPages::select(const EventQuery& query, Progress* progress) const {
  if (query.sort != EventColumn::Index)
    return Error{
        "sorting by this column needs every event in memory, which this file is too large for: the rows are in event "
        "order (# sorts either way); filter instead (e.g. size>=1MB, action:alloc, frame:linear.py)"};
  auto filter = parseEventFilter(query.filter);
  if (!filter) return filter.error();
  EventPageRows rows;
  rows.query = query;
  rows.total = events_;
  if (filter->empty()) {
    rows.all = true;
    rows.size = events_;
    return rows;
  }
  const EventMatcher matcher(*tables_, *filter, phases_.get());
  ReadBudget budget(limits_);
  auto db = connect(budget, progress);
  if (!db) return db.error();
  auto st = db->prepare(pageSql(columns_.modules, "1"));
  if (!st) return st.error();
  uint64_t seen = 0;
  while (st->step()) {
    const int64_t seq = st->int64(0);
    Event e;
    if (std::string wrong = decodeEventRow(*st, columns_, static_cast<uint64_t>(seq), path_, e, 1); !wrong.empty())
      return Error{wrong};
    if (matcher.matches(e.action, e.source, e.category, e.device, e.phase, e.run, e.stack, e.size)) {
      if (rows.size % kStride == 0) rows.anchors.push_back(seq);
      ++rows.size;
    }
    if ((++seen & 0xFFFF) == 0 && progress) {
      if (progress->cancelled()) return Error{"cancelled"};
      progress->report(seen, events_);
    }
  }
  if (st->failed()) return Error{fmt::format("{}: {}", path_, st->error())};
  return rows;
}

Result<EventPage> EventPages::ascending(const EventPageRows& rows, uint64_t first, size_t count) const {
  EventPage page;
  page.first_row = first;
  if (first >= rows.size || count == 0) return page;
  count = static_cast<size_t>(std::min<uint64_t>(count, rows.size - first));
  ReadBudget budget(limits_);
  auto db = connect(budget, nullptr);
  if (!db) return db.error();
  std::optional<EventMatcher> matcher;
  int64_t from = first_seq_ + static_cast<int64_t>(first);
  uint64_t skip = 0;
  if (!rows.all) {
    auto filter = parseEventFilter(rows.query.filter);
    if (!filter) return filter.error();
    matcher.emplace(*tables_, *filter, phases_.get());
    const uint64_t anchor = first / kStride;
    if (anchor >= rows.anchors.size()) return Error{"the rows asked for are past the query's"};
    from = rows.anchors[anchor];
    skip = first % kStride;
  }
  auto st = db->prepare(pageSql(columns_.modules, "seq >= ?1"));
  if (!st) return st.error();
  st->bind(1, from);
  page.events.reserve(count);
  while (page.index.size() < count && st->step()) {
    const int64_t seq = st->int64(0);
    Event e;
    if (std::string wrong = decodeEventRow(*st, columns_, static_cast<uint64_t>(seq), path_, e, 1); !wrong.empty())
      return Error{wrong};
    if (matcher && !matcher->matches(e.action, e.source, e.category, e.device, e.phase, e.run, e.stack, e.size))
      continue;
    if (skip > 0) {
      --skip;
      continue;
    }
    page.index.push_back(static_cast<uint64_t>(seq - first_seq_));
    page.events.push(e);
  }
  if (st->failed()) return Error{fmt::format("{}: {}", path_, st->error())};
  return page;
}

Result<EventPage> EventPages::page(const EventPageRows& rows, uint64_t first_row, size_t count) const {
  count = std::min(count, kMaxPageRows);
  if (!rows.query.descending) return ascending(rows, first_row, count);
  // Descending rows [first, first + count) are ascending rows [size - first - count, size - first), reversed.
  if (first_row >= rows.size) return EventPage{first_row, {}, {}};
  const uint64_t end = rows.size - first_row;
  const uint64_t begin = end >= count ? end - count : 0;
  auto up = ascending(rows, begin, static_cast<size_t>(end - begin));
  if (!up) return up;
  EventPage down;
  down.first_row = first_row;
  down.events.reserve(up->index.size());
  for (size_t i = up->index.size(); i-- > 0;) {
    down.index.push_back(up->index[i]);
    down.events.push(up->events.at(i));
  }
  return down;
}

}  // namespace sawtooth
