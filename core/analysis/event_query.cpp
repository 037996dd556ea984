#include "core/analysis/event_query.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "core/analysis/frame_filter.h"

namespace sawtooth {

// Which entries of a small table (actions, phases, stacks...) a term matches.
struct EventMatcher::Term {
  std::array<bool, kActionCount> action{};
  std::array<bool, kSourceCount> source{};
  std::array<bool, kCategoryCount> category{};
  std::vector<bool> device;  // by device id + 32768
  std::vector<bool> phase, run, stack;
};

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower(c);
  return out;
}

std::string_view baseName(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

constexpr std::pair<std::string_view, EventField> kFields[] = {
    {"action", EventField::Action}, {"source", EventField::Source}, {"category", EventField::Category},
    {"device", EventField::Device}, {"phase", EventField::Phase},   {"run", EventField::Run},
    {"frame", EventField::Frame}};

using TermMatches = EventMatcher::Term;

bool wants(EventField term, EventField field) { return term == EventField::Any || term == field; }

TermMatches matchTerm(const Trace& t, const EventFilter::Term& term, const PhaseNames* phases) {
  TermMatches m;
  const std::string& p = term.pattern;
  if (wants(term.field, EventField::Action))
    for (int i = 0; i < kActionCount; ++i) m.action[static_cast<size_t>(i)] = globMatch(p, name(static_cast<Action>(i)));
  if (wants(term.field, EventField::Source))
    for (int i = 0; i < kSourceCount; ++i) m.source[static_cast<size_t>(i)] = globMatch(p, name(static_cast<Source>(i)));
  if (wants(term.field, EventField::Category))
    for (int i = 0; i < kCategoryCount; ++i) m.category[static_cast<size_t>(i)] = globMatch(p, name(static_cast<Category>(i)));
  m.device.assign(65536, false);
  if (wants(term.field, EventField::Device))
    for (int16_t d : t.deviceIds())
      m.device[static_cast<size_t>(d + 32768)] = globMatch(p, deviceLabel(d)) || globMatch(p, t.deviceName(d));
  if (phases) {
    m.phase.assign(phases->size(), false);
    if (wants(term.field, EventField::Phase)) {
      std::vector<bool> named(phases->names.size());
      for (size_t n = 0; n < named.size(); ++n) named[n] = globMatch(p, phases->names[n]);
      for (size_t i = 0; i < phases->size(); ++i) m.phase[i] = named[phases->of[i]];
    }
  } else {
    m.phase.assign(t.phases.size(), false);
    if (wants(term.field, EventField::Phase))
      for (size_t i = 0; i < t.phases.size(); ++i) m.phase[i] = globMatch(p, t.phases[i].name);
  }
  m.run.assign(t.runs.size(), false);
  if (wants(term.field, EventField::Run))
    for (size_t i = 0; i < t.runs.size(); ++i) m.run[i] = globMatch(p, t.runs[i].name);
  m.stack.assign(t.stacks.stackCount(), false);
  if (wants(term.field, EventField::Frame)) {
    std::vector<bool> frame(t.stacks.frameCount());
    for (size_t f = 0; f < frame.size(); ++f) {
      const FrameView fr = t.stacks.frame(static_cast<uint32_t>(f));
      frame[f] = globMatch(p, fr.name) || globMatch(p, baseName(fr.file)) ||
                 (fr.line > 0 && globMatch(p, fmt::format("{}:{}", baseName(fr.file), fr.line)));
    }
    for (size_t s = 0; s < m.stack.size(); ++s)
      for (uint32_t f : t.stacks.stack(static_cast<uint32_t>(s)))
        if (frame[f]) {
          m.stack[s] = true;
          break;
        }
  }
  return m;
}

// Order-preserving map of a signed key onto unsigned.
uint64_t key(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }

// Ranks of names in alphabetical order (ties by position).
template <typename NameOf>
std::vector<uint64_t> alphabeticalRanks(size_t n, NameOf name_of) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::vector<std::string> names(n);
  for (size_t i = 0; i < n; ++i) names[i] = lowered(name_of(i));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return names[a] < names[b]; });
  std::vector<uint64_t> rank(n);
  for (size_t r = 0; r < n; ++r) rank[order[r]] = r + 1;  // 0 is left for "none"
  return rank;
}

}  // namespace

EventMatcher::EventMatcher(const Trace& tables, const EventFilter& filter, const PhaseNames* phases)
    : sizes_(filter.sizes) {
  for (const auto& term : filter.terms) terms_.push_back(matchTerm(tables, term, phases));
}
EventMatcher::~EventMatcher() = default;
EventMatcher::EventMatcher(EventMatcher&&) noexcept = default;

bool EventMatcher::matches(Action action, Source source, Category category, int16_t device, uint32_t phase,
                           uint32_t run, uint32_t stack, int64_t size) const {
  for (const auto& s : sizes_)
    if (!s.matches(size)) return false;
  for (const Term& m : terms_) {
    const bool ok = m.action[static_cast<size_t>(action)] || m.source[static_cast<size_t>(source)] ||
                    m.category[static_cast<size_t>(category)] || m.device[static_cast<size_t>(device + 32768)] ||
                    (phase < m.phase.size() && m.phase[phase]) || (run < m.run.size() && m.run[run]) ||
                    (stack < m.stack.size() && m.stack[stack]);
    if (!ok) return false;
  }
  return true;
}

bool EventFilter::SizeTest::matches(int64_t size) const {
  switch (op) {
    case Op::Less: return size < bytes;
    case Op::LessEqual: return size <= bytes;
    case Op::Equal: return size == bytes;
    case Op::GreaterEqual: return size >= bytes;
    case Op::Greater: return size > bytes;
  }
  return false;
}

bool globMatch(std::string_view pattern, std::string_view text) {
  // Iterative wildcard matching with backtracking to the last '*'.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == lower(text[t]))) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<int64_t> parseFilterByteSize(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || !(value >= 0) || !std::isfinite(value)) return std::nullopt;
  std::string unit = lowered(std::string_view(end, static_cast<size_t>(text.data() + text.size() - end)));
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  const bool binary = unit.size() >= 2 && unit[1] == 'i';
  if (binary) unit.erase(1, 1);
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  const double base = binary ? 1024.0 : 1000.0;
  double scale = 1;
  if (unit == "k") scale = base;
  else if (unit == "m") scale = base * base;
  else if (unit == "g") scale = base * base * base;
  else if (unit == "t") scale = base * base * base * base;
  else if (!unit.empty() || binary) return std::nullopt;
  const double bytes = value * scale;
  if (bytes >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(bytes);
}

Result<EventFilter> parseEventFilter(std::string_view text) {
  EventFilter f;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    const std::string_view token = text.substr(i, j - i);
    i = j;
    if (token.empty()) continue;
    if (token.starts_with("size") && token.size() > 4 && std::string_view("<>=").find(token[4]) != std::string_view::npos) {
      std::string_view rest = token.substr(4);
      EventFilter::SizeTest test;
      using Op = EventFilter::SizeTest::Op;
      if (rest.starts_with(">=")) test.op = Op::GreaterEqual, rest.remove_prefix(2);
      else if (rest.starts_with("<=")) test.op = Op::LessEqual, rest.remove_prefix(2);
      else if (rest.starts_with(">")) test.op = Op::Greater, rest.remove_prefix(1);
      else if (rest.starts_with("<")) test.op = Op::Less, rest.remove_prefix(1);
      else test.op = Op::Equal, rest.remove_prefix(1);
      const auto bytes = parseFilterByteSize(rest);
      if (!bytes) return Error{fmt::format("'{}' is not a size (try size>=1MB)", rest)};
      test.bytes = *bytes;
      f.sizes.push_back(test);
      continue;
    }
    EventFilter::Term term;
    term.pattern = lowered(token);
    if (const size_t colon = token.find(':'); colon != std::string_view::npos) {
      const std::string field = lowered(token.substr(0, colon));
      for (const auto& [n, which] : kFields)
        if (field == n) {
          term.field = which;
          term.pattern = lowered(token.substr(colon + 1));
        }
      // Anything else with a colon ("cuda:0", "linear.py:125", "at::matmul") is a plain word.
      if (term.field != EventField::Any && term.pattern.empty())
        return Error{fmt::format("'{}' needs a value after the colon", token)};
    }
    f.terms.push_back(std::move(term));
  }
  return f;
}

int64_t EventRows::rowOf(uint64_t event) const {
  if (!rows) return event < total ? static_cast<int64_t>(event) : -1;
  for (size_t r = 0; r < rows->size(); ++r)
    if ((*rows)[r] == event) return static_cast<int64_t>(r);
  return -1;
}

std::vector<uint64_t> sortRanks(const Trace& trace, EventColumn column) {
  switch (column) {
    case EventColumn::Source:
      return alphabeticalRanks(kSourceCount, [](size_t i) { return std::string(name(static_cast<Source>(i))); });
    case EventColumn::Action:
      return alphabeticalRanks(kActionCount, [](size_t i) { return std::string(name(static_cast<Action>(i))); });
    case EventColumn::Category:
      return alphabeticalRanks(kCategoryCount, [](size_t i) { return std::string(name(static_cast<Category>(i))); });
    case EventColumn::Phase: return alphabeticalRanks(trace.phases.size(), [&](size_t i) { return trace.phases[i].name; });
    case EventColumn::TopFrame:
      return alphabeticalRanks(trace.stacks.stackCount(),
                               [&](size_t i) { return topFrameText(trace.stacks, static_cast<uint32_t>(i)); });
    default: return {};
  }
}

std::vector<uint64_t> phaseRanks(const PhaseNames& phases) {
  // A phase's rank is its name's place among the distinct names, then its id: what ordering every
  // phase by name with ties by position gives, without a string per phase.
  const std::vector<uint64_t> name_rank =
      alphabeticalRanks(phases.names.size(), [&](size_t i) { return phases.names[i]; });
  std::vector<uint64_t> lowered_rank(name_rank.size());
  {
    // Names that differ only in case tie, as they do in sortRanks: they share the first one's rank.
    std::vector<size_t> order(name_rank.size());
    for (size_t i = 0; i < order.size(); ++i) order[name_rank[i] - 1] = i;
    uint64_t rank = 0;
    std::string last;
    for (size_t r = 0; r < order.size(); ++r) {
      std::string here = lowered(phases.names[order[r]]);
      if (r == 0 || here != last) ++rank;
      lowered_rank[order[r]] = rank;
      last = std::move(here);
    }
  }
  const uint64_t n = phases.of.size();
  std::vector<uint64_t> rank(n);
  for (uint64_t id = 0; id < n; ++id) rank[id] = lowered_rank[phases.of[id]] * (n + 1) + id + 1;
  return rank;
}

uint64_t sortKey(const Event& e, uint64_t index, EventColumn column, const std::vector<uint64_t>& ranks) {
  auto ranked = [&](uint64_t v) { return v < ranks.size() ? ranks[v] : 0; };
  switch (column) {
    case EventColumn::Index: return index;
    case EventColumn::Time: return key(e.t_ns);
    case EventColumn::Device: return key(e.device);
    case EventColumn::Source: return ranked(static_cast<uint64_t>(e.source));
    case EventColumn::Action: return ranked(static_cast<uint64_t>(e.action));
    case EventColumn::Size: return key(e.size);
    case EventColumn::Address: return e.addr;
    case EventColumn::Stream: return e.stream;
    case EventColumn::Category: return ranked(static_cast<uint64_t>(e.category));
    case EventColumn::Phase: return ranked(e.phase);
    case EventColumn::Run: return e.run;
    case EventColumn::TopFrame: return ranked(e.stack);
  }
  return index;
}

Result<EventRows> selectEvents(const Trace& trace, const EventQuery& query, Progress* progress) {
  auto filter = parseEventFilter(query.filter);
  if (!filter) return filter.error();
  const auto& ev = trace.events;
  const size_t n = ev.size();
  if (n > std::numeric_limits<uint32_t>::max())
    return Error{fmt::format("{} events are more than the events table can list", n)};
  EventRows out;
  out.query = query;
  out.total = n;
  if (filter->empty() && query.sort == EventColumn::Index && !query.descending) return out;

  Progress filtering = progress ? progress->sub(0, 600) : Progress();
  auto rows = std::make_shared<std::vector<uint32_t>>();
  if (filter->empty()) {
    rows->resize(n);
    std::iota(rows->begin(), rows->end(), uint32_t{0});
  } else {
    const EventMatcher matcher(trace, *filter);
    const auto& dev = ev.device();
    const auto& act = ev.action();
    const auto& src = ev.source();
    const auto& cat = ev.category();
    const auto& phase = ev.phase();
    const auto& run = ev.run();
    const auto& stack = ev.stack();
    const auto& size = ev.sizes();
    for (size_t i = 0; i < n; ++i) {
      if ((i & 0xFFFF) == 0 && progress) {
        if (progress->cancelled()) return Error{"cancelled"};
        filtering.report(i, n);
      }
      if (matcher.matches(act[i], src[i], cat[i], dev[i], phase[i], run[i], stack[i], size[i]))
        rows->push_back(static_cast<uint32_t>(i));
    }
  }
  if (progress && progress->cancelled()) return Error{"cancelled"};

  if (query.sort != EventColumn::Index || query.descending) {
    // The key of each event (ascending order of the column), then one sort of (key, event) pairs:
    // ties stay in event order whichever the direction.
    std::vector<uint64_t> rank;
    auto keyOf = [&](size_t i) -> uint64_t {
      switch (query.sort) {
        case EventColumn::Index: return i;
        case EventColumn::Time: return key(ev.tNs()[i]);
        case EventColumn::Device: return key(ev.device()[i]);
        case EventColumn::Source: return rank[static_cast<size_t>(ev.source()[i])];
        case EventColumn::Action: return rank[static_cast<size_t>(ev.action()[i])];
        case EventColumn::Size: return key(ev.sizes()[i]);
        case EventColumn::Address: return ev.addr()[i];
        case EventColumn::Stream: return ev.stream()[i];
        case EventColumn::Category: return rank[static_cast<size_t>(ev.category()[i])];
        case EventColumn::Phase: return ev.phase()[i] < rank.size() ? rank[ev.phase()[i]] : 0;
        case EventColumn::Run: return ev.run()[i];
        case EventColumn::TopFrame: return ev.stack()[i] < rank.size() ? rank[ev.stack()[i]] : 0;
      }
      return i;
    };
    rank = sortRanks(trace, query.sort);
    std::vector<std::pair<uint64_t, uint32_t>> keyed(rows->size());
    for (size_t r = 0; r < rows->size(); ++r) {
      const uint32_t i = (*rows)[r];
      const uint64_t k = keyOf(i);
      keyed[r] = {query.descending ? ~k : k, i};
    }
    if (progress) progress->report(700, 1000);
    if (progress && progress->cancelled()) return Error{"cancelled"};
    std::sort(keyed.begin(), keyed.end());
    if (progress && progress->cancelled()) return Error{"cancelled"};
    for (size_t r = 0; r < keyed.size(); ++r) (*rows)[r] = keyed[r].second;
  }
  if (progress) progress->report(1000, 1000);
  out.rows = std::move(rows);
  return out;
}

}  // namespace sawtooth
