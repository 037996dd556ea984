#include "core/analysis/trace_diff.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "core/analysis/call_sites.h"
#include "core/analysis/live_allocations.h"
#include "core/analysis/missing_stacks.h"
#include "core/analysis/module_memory.h"
#include "core/analysis/summary_moment.h"
#include "core/util/format_bytes.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

using SiteKey = std::pair<std::string, Category>;

struct SiteBytes {
  int64_t live = 0;
  int64_t count = 0;
  int64_t total = 0;
};

struct SideData {
  DiffSide side;
  std::map<SiteKey, SiteBytes> sites;
  bool categorised = false;  // some allocation in scope has a category
};

// What a diff row is keyed by: an allocation's call site, or its module.
class RowKeys {
 public:
  RowKeys(const Trace& t, DiffBy by) : trace_(t), by_(by), names_(t.stacks) {}
  std::string key(uint32_t stack, uint32_t module) {
    if (by_ == DiffBy::Site) return names_.site(stack).label;
    return module < trace_.modules.size() ? trace_.modules.fullName(module) : std::string(kOutsideModules);
  }
  std::string_view none() const { return by_ == DiffBy::Site ? kNoStackSite : kOutsideModules; }

 private:
  const Trace& trace_;
  DiffBy by_;
  SiteNamer names_;
};

Result<std::optional<uint16_t>> findRun(const Trace& t, const std::string& file, const std::string& run) {
  if (run.empty()) return std::optional<uint16_t>{};
  for (size_t i = 0; i < t.runs.size(); ++i)
    if (t.runs[i].name == run) return std::optional<uint16_t>(static_cast<uint16_t>(i));
  size_t index = 0;
  auto [end, ec] = std::from_chars(run.data(), run.data() + run.size(), index);
  if (ec == std::errc() && end == run.data() + run.size() && index < t.runs.size())
    return std::optional<uint16_t>(static_cast<uint16_t>(index));
  std::string names;
  for (const Run& r : t.runs) names += (names.empty() ? "" : ", ") + ("'" + r.name + "'");
  return Error{fmt::format("{}: no run '{}' ({})", file, run, names.empty() ? "the trace has no runs" : "runs: " + names)};
}

// The bytes alive at the side's peak by row; what no allocation accounts for (of `peak`) goes to
// `rest_site`.
void addLive(SideData& d, RowKeys& keys, const LiveSet& live, int64_t peak, std::string_view rest_site) {
  int64_t attributed = 0;
  for (const LiveAllocation& a : live.allocations) {
    SiteBytes& s = d.sites[{keys.key(a.stack, a.module), a.category}];
    s.live = wrappingAdd(s.live, a.bytes);
    ++s.count;
    attributed = wrappingAdd(attributed, a.bytes);
    d.categorised |= a.category != Category::Unknown;
  }
  // The peak as info reports it; whatever no allocation accounts for has no stack. Within a run
  // that is mostly what the run freed but did not allocate (it counts from zero, as info does).
  if (const int64_t rest = wrappingSub(peak, attributed); rest != 0) {
    SiteBytes& s = d.sites[{std::string(rest_site), Category::Unknown}];
    s.live = wrappingAdd(s.live, rest);
  }
}

// What the side's device allocated over its scope, by row.
void addTotals(SideData& d, RowKeys& keys, const std::vector<AllocatedTotal>& totals) {
  for (const AllocatedTotal& total : totals) {
    SiteBytes& s = d.sites[{keys.key(total.stack, total.module), total.category}];
    d.categorised |= total.category != Category::Unknown;
    s.total = wrappingAdd(s.total, total.bytes);
    d.side.total_allocated = wrappingAdd(d.side.total_allocated, total.bytes);
  }
}

// A file too large to read whole: its moment at the peak, and what it allocated over the whole
// trace when counted.
Result<SideData> readMomentSide(const Trace& tables, const SummaryMoment& moment, const std::string& file, DiffBy by,
                                const std::vector<AllocatedTotal>* totals) {
  if (by == DiffBy::Module)
    if (std::string why = modulesUnavailableReason(tables); !why.empty()) return Error{fmt::format("{}: {}", file, why)};
  SideData d;
  d.side.file = file;
  d.side.device = static_cast<int16_t>(moment.device);
  d.side.peak_allocated_bytes = moment.live.total;
  d.side.peak_position = moment.position;
  d.side.peak_phase = moment.context.phase;
  RowKeys keys(tables, by);
  addLive(d, keys, moment.live, moment.live.total, keys.none());
  if (totals) addTotals(d, keys, *totals);
  return d;
}

Result<SideData> readSide(const Trace& t, const std::string& file, const std::string& run_name, DiffBy by) {
  if (by == DiffBy::Module)
    if (std::string why = modulesUnavailableReason(t); !why.empty()) return Error{fmt::format("{}: {}", file, why)};
  auto run = findRun(t, file, run_name);
  if (!run) return run.error();
  SideData d;
  d.side.file = file;
  if (*run) d.side.run = t.runs[**run].name;
  ScopePeak best;
  bool any = false;
  for (int16_t device : t.deviceIds()) {
    const ScopePeak p = scopePeak(t, device, *run);
    if (!any || p.bytes > best.bytes) {
      best = p;
      d.side.device = device;
      any = true;
    }
  }
  d.side.peak_allocated_bytes = best.bytes;
  d.side.peak_position = best.position;
  if (best.event < t.events.size()) {
    const uint32_t phase = t.events.phase()[best.event];
    if (phase < t.phases.size()) d.side.peak_phase = t.phases[phase].name;
  }
  RowKeys keys(t, by);
  addLive(d, keys, liveAllocationsAt(t, d.side.device, best.position, *run), best.bytes,
          *run ? kBeforeRunSite : keys.none());
  addTotals(d, keys, allocatedTotals(t, d.side.device, *run));
  return d;
}

std::string signedBytes(int64_t bytes) { return (bytes > 0 ? "+" : "") + formatBytes(bytes); }

std::string siteWithCategory(const DiffRow& r) {
  return r.category == Category::Unknown ? r.site : fmt::format("{} ({})", r.site, name(r.category));
}

void summarise(TraceDiff& d) {
  PeakChange& c = d.change;
  c.delta = wrappingSub(d.b.peak_allocated_bytes, d.a.peak_allocated_bytes);
  c.fraction = d.a.peak_allocated_bytes ? static_cast<double>(c.delta) / static_cast<double>(d.a.peak_allocated_bytes) : 0;
  int64_t grown = 0;
  for (size_t i = 0; i < d.rows.size(); ++i) {
    const DiffRow& r = d.rows[i];
    if (r.growth() > 0) grown = wrappingAdd(grown, r.growth());
    if (r.a_bytes == 0 && r.b_bytes != 0) ++c.new_sites;
    if (r.a_bytes != 0 && r.b_bytes == 0) ++c.gone_sites;
  }
  int64_t explained = 0;
  for (size_t i = 0; i < d.rows.size() && d.rows[i].growth() > 0; ++i) {  // rows are by growth
    if (c.grew.size() == 5 || (grown > 0 && static_cast<double>(explained) >= 0.8 * static_cast<double>(grown))) break;
    c.grew.push_back(i);
    explained = wrappingAdd(explained, d.rows[i].growth());
  }
  for (size_t i = d.rows.size(); i-- > 0 && d.rows[i].growth() < 0 && c.shrank.size() < 3;) c.shrank.push_back(i);

  auto where = [](const DiffSide& s) { return s.peak_phase.empty() ? std::string() : " during " + s.peak_phase; };
  c.lines.push_back(fmt::format("Peak: {} ({}) → {} ({}): {}{}.", formatBytes(d.a.peak_allocated_bytes),
                                d.a.run.empty() ? "A" + where(d.a) : d.a.run + where(d.a), formatBytes(d.b.peak_allocated_bytes),
                                d.b.run.empty() ? "B" + where(d.b) : d.b.run + where(d.b), signedBytes(c.delta),
                                d.a.peak_allocated_bytes ? fmt::format(" ({:+.1f} %)", 100 * c.fraction) : ""));
  if (c.grew.empty() && c.shrank.empty()) {
    c.lines.push_back(d.by == DiffBy::Site ? "Every call site holds the same bytes at both peaks."
                                           : "Every module holds the same bytes at both peaks.");
    return;
  }
  auto list = [&](const std::vector<size_t>& rows) {
    std::string parts;
    for (size_t i : rows) parts += (parts.empty() ? "" : "; ") + siteWithCategory(d.rows[i]) + " " + signedBytes(d.rows[i].growth());
    return parts;
  };
  if (!c.grew.empty())
    c.lines.push_back(fmt::format("Grew: {} ({:.0f} % of all growth).", list(c.grew),
                                  grown ? 100.0 * static_cast<double>(explained) / static_cast<double>(grown) : 0.0));
  if (!c.shrank.empty()) c.lines.push_back(fmt::format("Shrank: {}.", list(c.shrank)));
  if (c.new_sites || c.gone_sites)
    c.lines.push_back(fmt::format("{} {}(s) alive at B's peak only, {} at A's only.", c.new_sites,
                                  d.by == DiffBy::Site ? "site" : "module", c.gone_sites));
}

}  // namespace

int64_t DiffRow::growth() const { return wrappingSub(b_bytes, a_bytes); }

Result<TraceDiff> diffTraces(const Trace& a, const std::string& a_file, const Trace& b, const std::string& b_file,
                             const std::string& run_a, const std::string& run_b, DiffBy by) {
  return diffInputs(DiffInput{&a, nullptr, a_file, run_a}, DiffInput{&b, nullptr, b_file, run_b}, by);
}

Result<TraceDiff> diffInputs(const DiffInput& a_in, const DiffInput& b_in, DiffBy by) {
  auto readInput = [by](const DiffInput& in) -> Result<SideData> {
    if (!in.trace) return Error{fmt::format("{}: nothing to diff", in.file)};
    if (in.moment) {
      if (!in.run.empty())
        return Error{fmt::format("{}: a run of a file too large to read whole cannot be diffed on its own", in.file)};
      return readMomentSide(*in.trace, *in.moment, in.file, by, in.totals);
    }
    return readSide(*in.trace, in.file, in.run, by);
  };
  const Trace& a = *a_in.trace;
  const Trace& b = *b_in.trace;
  auto sa = readInput(a_in);
  if (!sa) return sa.error();
  auto sb = readInput(b_in);
  if (!sb) return sb.error();
  TraceDiff d;
  d.by = by;
  d.totals_known = (!a_in.moment || a_in.totals) && (!b_in.moment || b_in.totals);
  // A side without categories (a PyTorch snapshot) would split every row of the other side by
  // category against its own "unknown": match by site alone then.
  d.by_category = sa->categorised && sb->categorised;
  if (!d.by_category)
    for (SideData* side : {&*sa, &*sb}) {
      std::map<SiteKey, SiteBytes> merged;
      for (const auto& [key, bytes] : side->sites) {
        SiteBytes& m = merged[{key.first, Category::Unknown}];
        m.live = wrappingAdd(m.live, bytes.live);
        m.count += bytes.count;
        m.total = wrappingAdd(m.total, bytes.total);
      }
      side->sites = std::move(merged);
    }
  d.a = sa->side;
  d.b = sb->side;
  std::map<SiteKey, DiffRow> rows;
  // One side's bytes into the rows: a's or b's fields.
  auto fill = [&](const SideData& side, int64_t DiffRow::*bytes, int64_t DiffRow::*count, int64_t DiffRow::*total) {
    for (const auto& [key, s] : side.sites) {
      DiffRow& r = rows[key];
      r.site = key.first;
      r.category = key.second;
      r.*bytes = s.live;
      r.*count = s.count;
      r.*total = s.total;
    }
  };
  fill(*sa, &DiffRow::a_bytes, &DiffRow::a_count, &DiffRow::a_total_allocated);
  fill(*sb, &DiffRow::b_bytes, &DiffRow::b_count, &DiffRow::b_total_allocated);
  for (auto& [key, r] : rows) d.rows.push_back(std::move(r));
  std::stable_sort(d.rows.begin(), d.rows.end(), [](const DiffRow& x, const DiffRow& y) { return x.growth() > y.growth(); });
  summarise(d);
  if (by == DiffBy::Site) {  // "(no stack)" alone reads as a failure: say why a side has none
    const std::string why_a = missingStacksReason(a), why_b = &a == &b ? why_a : missingStacksReason(b);
    if (!why_a.empty() && why_a == why_b)
      d.change.lines.push_back(fmt::format("A and B have no call stacks ({}): their bytes are all under {}.", why_a,
                                           kNoStackSite));
    else
      for (const auto& [side, why] : {std::pair{"A", why_a}, std::pair{"B", why_b}})
        if (!why.empty())
          d.change.lines.push_back(fmt::format("{} has no call stacks ({}): its bytes are all under {}.", side, why,
                                               kNoStackSite));
  }
  return d;
}

}  // namespace sawtooth
