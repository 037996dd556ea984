#include "core/analysis/site_tables.h"

#include <algorithm>

#include "core/analysis/diff_top_sites.h"

namespace sawtooth {
namespace {

std::string categoryText(Category category) {
  std::string text(name(category));
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

double number(int64_t v) { return static_cast<double>(v); }

}  // namespace

Table liveSitesTable(const LiveBytes& live) {
  Table t;
  t.columns = {{"call site", Unit::Text}, {"category", Unit::Text}, {"live", Unit::Bytes}, {"share", Unit::Share},
               {"allocations", Unit::Count}, {"file", Unit::Text}, {"line", Unit::Count}, {"function", Unit::Text}};
  t.rows.reserve(live.sites.size());
  for (const SiteRow& r : live.sites)
    t.rows.push_back({r.site, categoryText(r.category), number(r.bytes),
                      live.total > 0 ? Cell(static_cast<double>(r.bytes) / static_cast<double>(live.total)) : Cell(),
                      number(r.count), r.file, r.line > 0 ? Cell(number(r.line)) : Cell(), r.function});
  return t;
}

Table diffSitesTable(const TraceDiff& diff) {
  Table t;
  t.columns = {{"call site", Unit::Text},          {"category", Unit::Text},
               {"A at its peak", Unit::Bytes},     {"B at its peak", Unit::Bytes},
               {"change", Unit::Bytes},            {"A allocated in all", Unit::Bytes},
               {"B allocated in all", Unit::Bytes}, {"A allocations", Unit::Count},
               {"B allocations", Unit::Count}};
  t.columns[4].is_change = true;
  t.rows.reserve(diff.rows.size());
  for (const DiffRow& r : diff.rows)
    t.rows.push_back({r.site, categoryText(r.category), number(r.a_bytes), number(r.b_bytes), number(r.growth()),
                      number(r.a_total_allocated), number(r.b_total_allocated), number(r.a_count), number(r.b_count)});
  if (!diff.totals_known) {  // not counted for a file too large to read whole: no column rather than zeros
    t.columns.erase(t.columns.begin() + 5, t.columns.begin() + 7);
    for (auto& row : t.rows) row.erase(row.begin() + 5, row.begin() + 7);
  }
  return t;
}

CallSiteDiff callSiteDiff(TraceDiff diff, size_t top_sites) {
  CallSiteDiff out;
  out.table = diffSitesTable(diff);
  out.top_rows = topChangedRows(diff, top_sites);
  out.diff = std::move(diff);
  return out;
}

}  // namespace sawtooth
