#include "core/io/event_pages.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <sqlite3.h>

#include "core/io/native_format.h"

namespace sawtooth {
namespace {

// The columns of a query: seq first, then what readEventRows reads, then (for a page) the phase's name.
std::string pageSql(bool modules, const char* where, bool phase_name) {
  return fmt::format("SELECT seq, {}{} FROM events WHERE {} ORDER BY seq", eventColumnsSql(modules),
                     phase_name ? ", (SELECT name FROM phases WHERE id = events.phase)" : "", where);
}

// Whether a filter looks at phases' names (a word matches any field; phase:VALUE).
bool wantsPhases(const EventFilter& filter) {
  return std::any_of(filter.terms.begin(), filter.terms.end(), [](const EventFilter::Term& t) {
    return t.field == EventField::Any || t.field == EventField::Phase;
  });
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
  if (db->hasTable("phases")) {  // the rowid's largest, found at the b-tree's end
    auto last = db->prepare("SELECT max(id) FROM phases");
    if (!last) return last.error();
    if (last->step() && !last->isNull(0) && last->int64(0) >= 0)
      pages->columns_.phase_count = static_cast<size_t>(std::min<int64_t>(last->int64(0), UINT32_MAX - 1)) + 1;
    if (last->failed()) return Error{fmt::format("{}: {}", path, last->error())};
  }
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

Result<PhaseNames> EventPages::readPhaseNames(sql::Database& db, ReadBudget& budget) const {
  const std::string& path = path_;
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
  auto filter = parseEventFilter(query.filter);
  if (!filter) return filter.error();
  EventPageRows rows;
  rows.query = query;
  rows.total = events_;
  rows.by_column = query.sort != EventColumn::Index;
  if (filter->empty() && !rows.by_column) {
    rows.all = true;
    rows.size = rows.matching = events_;
    return rows;
  }
  ReadBudget budget(limits_);
  auto db = connect(budget, progress);
  if (!db) return db.error();
  PhaseNames phases;
  const bool by_phase = query.sort == EventColumn::Phase;
  if (wantsPhases(*filter) || by_phase) {
    auto read = readPhaseNames(*db, budget);
    if (!read) return read.error();
    phases = std::move(*read);
  }
  rows.matcher = std::make_shared<const EventMatcher>(*tables_, *filter, &phases);
  const EventMatcher& matcher = *rows.matcher;
  // A sort by a column: the first kMaxSortedRows (key, seq) pairs in its order, the last of them on
  // top of the heap (descending: the keys inverted; ties stay in event order either way).
  if (by_phase && !budget.take(phases.size() * sizeof(uint64_t)))
    return Error{fmt::format("{}: {}: sort by another column, or filter by phase (e.g. phase:backward)", path_,
                             budget.memoryError("a sort by phase").message)};
  const std::vector<uint64_t> ranks = by_phase         ? phaseRanks(phases)
                                      : rows.by_column ? sortRanks(*tables_, query.sort)
                                                       : std::vector<uint64_t>();
  std::vector<std::pair<uint64_t, int64_t>> heap;
  auto st = db->prepare(pageSql(columns_.modules, "1", false));
  if (!st) return st.error();
  uint64_t seen = 0;
  while (st->step()) {
    const int64_t seq = st->int64(0);
    Event e;
    if (std::string wrong = decodeEventRow(*st, columns_, static_cast<uint64_t>(seq), path_, e, 1); !wrong.empty())
      return Error{wrong};
    if (matcher.matches(e.action, e.source, e.category, e.device, e.phase, e.run, e.stack, e.size)) {
      if (rows.by_column) {
        const uint64_t key = sortKey(e, static_cast<uint64_t>(seq - first_seq_), query.sort, ranks);
        const std::pair<uint64_t, int64_t> entry{query.descending ? ~key : key, seq};
        if (heap.size() < kMaxSortedRows) {
          heap.push_back(entry);
          std::push_heap(heap.begin(), heap.end());
        } else if (entry < heap.front()) {
          std::pop_heap(heap.begin(), heap.end());
          heap.back() = entry;
          std::push_heap(heap.begin(), heap.end());
        }
      } else if (rows.matching % kStride == 0) {
        rows.anchors.push_back(seq);
      }
      ++rows.matching;
    }
    if ((++seen & 0xFFFF) == 0 && progress) {
      if (progress->cancelled()) return Error{"cancelled"};
      progress->report(seen, events_);
    }
  }
  rows.size = rows.matching;
  if (st->failed()) return Error{fmt::format("{}: {}", path_, st->error())};
  if (rows.by_column) {
    std::sort_heap(heap.begin(), heap.end());
    rows.sorted.reserve(heap.size());
    for (const auto& [key, seq] : heap) rows.sorted.push_back(seq);
    rows.size = rows.sorted.size();
  }
  return rows;
}

Result<EventPage> EventPages::sortedPage(const EventPageRows& rows, uint64_t first, size_t count) const {
  EventPage page;
  page.first_row = first;
  if (first >= rows.sorted.size() || count == 0) return page;
  count = static_cast<size_t>(std::min<uint64_t>(count, rows.sorted.size() - first));
  ReadBudget budget(limits_);
  auto db = connect(budget, nullptr);
  if (!db) return db.error();
  auto st = db->prepare(pageSql(columns_.modules, "seq = ?1", true));
  if (!st) return st.error();
  page.events.reserve(count);
  for (size_t r = 0; r < count; ++r) {
    const int64_t want = rows.sorted[static_cast<size_t>(first) + r];
    st->reset();
    st->bind(1, want);
    if (!st->step()) {
      if (st->failed()) return Error{fmt::format("{}: {}", path_, st->error())};
      return Error{fmt::format("{}: event {} is no longer in the file", path_, want - first_seq_)};
    }
    Event e;
    if (std::string wrong = decodeEventRow(*st, columns_, static_cast<uint64_t>(want), path_, e, 1); !wrong.empty())
      return Error{wrong};
    addRow(*st, want, e, page);
  }
  return page;
}

void EventPages::addRow(const sql::Statement& st, int64_t seq, const Event& e, EventPage& page) const {
  const int name_column = columns_.modules ? 14 : 12;  // after pageSql's event columns
  page.index.push_back(static_cast<uint64_t>(seq - first_seq_));
  page.events.push(e);
  // A name that is not text (a file is data) shows as none.
  page.phase_names.emplace_back(st.type(name_column) == SQLITE_TEXT ? st.text(name_column) : std::string_view());
}

Result<EventPage> EventPages::ascending(const EventPageRows& rows, uint64_t first, size_t count) const {
  EventPage page;
  page.first_row = first;
  if (first >= rows.size || count == 0) return page;
  count = static_cast<size_t>(std::min<uint64_t>(count, rows.size - first));
  ReadBudget budget(limits_);
  auto db = connect(budget, nullptr);
  if (!db) return db.error();
  const EventMatcher* matcher = rows.all ? nullptr : rows.matcher.get();
  int64_t from = first_seq_ + static_cast<int64_t>(first);
  uint64_t skip = 0;
  if (!rows.all) {
    if (!matcher) return Error{"the rows of a filter without its matcher"};
    const uint64_t anchor = first / kStride;
    if (anchor >= rows.anchors.size()) return Error{"the rows asked for are past the query's"};
    from = rows.anchors[anchor];
    skip = first % kStride;
  }
  auto st = db->prepare(pageSql(columns_.modules, "seq >= ?1", true));
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
    addRow(*st, seq, e, page);
  }
  if (st->failed()) return Error{fmt::format("{}: {}", path_, st->error())};
  return page;
}

Result<EventPage> EventPages::page(const EventPageRows& rows, uint64_t first_row, size_t count) const {
  count = std::min(count, kMaxPageRows);
  if (rows.by_column) return sortedPage(rows, first_row, count);  // the order is the rows' own
  if (!rows.query.descending) return ascending(rows, first_row, count);
  // Descending rows [first, first + count) are ascending rows [size - first - count, size - first), reversed.
  if (first_row >= rows.size) return EventPage{first_row, {}, {}, {}};
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
    down.phase_names.push_back(std::move(up->phase_names[i]));
  }
  return down;
}

}  // namespace sawtooth
