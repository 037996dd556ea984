#pragma once
// Filtering and sorting the events of a trace for the events table: the result is an index
// permutation (the rows, as event indices), computed off the GUI thread and cancellable.
//
// Filter syntax (every term must match; case-insensitive):
//   WORD          matches an event whose action, source, category, device, phase or run is WORD as a
//                 whole ("alloc" matches the action alloc, not the source "allocator"), or one of
//                 whose stack frames has WORD as its function or file name ("linear.py");
//   FIELD:VALUE   the same for one field: action, source, category, device, phase, run, frame
//                 (any other word with a colon, "cuda:0" or "linear.py:125", is a plain word);
//   * and ?       in a word or value match any text and any one character ("*linear*", "phase:fwd*");
//   size>=1MB     compares sizes (>=, <=, >, <, =; B, kB, MB, GB, TB, KiB, MiB, GiB, TiB).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

enum class EventField : uint8_t { Any, Action, Source, Category, Device, Phase, Run, Frame };

struct EventFilter {
  struct Term {
    EventField field = EventField::Any;
    std::string pattern;  // lower case, * and ? as wildcards
  };
  struct SizeTest {
    enum class Op : uint8_t { Less, LessEqual, Equal, GreaterEqual, Greater } op = Op::Equal;
    int64_t bytes = 0;
    bool matches(int64_t size) const;
  };
  std::vector<Term> terms;
  std::vector<SizeTest> sizes;
  bool empty() const { return terms.empty() && sizes.empty(); }
};

Result<EventFilter> parseEventFilter(std::string_view text);
// "1.5MB", "4096", "2 GiB" in bytes; nothing when unreadable.
std::optional<int64_t> parseFilterByteSize(std::string_view text);
// Whole-text match, case-insensitive, with * and ?; `pattern` in lower case.
bool globMatch(std::string_view pattern, std::string_view text);

// The events table's columns, in order.
enum class EventColumn : uint8_t { Index, Time, Device, Source, Action, Size, Address, Stream, Category, Phase, Run, TopFrame };
inline constexpr int kEventColumnCount = 12;

struct EventQuery {
  std::string filter;
  EventColumn sort = EventColumn::Index;
  bool descending = false;
};

// The rows of the events table: event indices, filtered and sorted (ties in event order). Null
// `rows` means every event in order (no filter, sorted by index ascending: nothing to store).
struct EventRows {
  EventQuery query;
  std::shared_ptr<const std::vector<uint32_t>> rows;
  size_t total = 0;  // events in the trace
  size_t size() const { return rows ? rows->size() : total; }
  uint64_t eventAt(size_t row) const { return rows ? (*rows)[row] : row; }
  // The row showing `event`, or -1 when it is filtered out.
  int64_t rowOf(uint64_t event) const;
};

// The names of a file's phases without the phases themselves (a long recording has millions of
// them under a few distinct names): each phase's name as an index into the distinct names.
struct PhaseNames {
  std::vector<std::string> names;
  std::vector<uint32_t> of;  // by phase id
  size_t size() const { return of.size(); }
};

// Whether an event passes a filter, from its columns' values: every term and size test of the
// filter, the names looked up in `tables` (a trace's devices, phases, runs and stacks; its events
// are not read). The events table of a file read a page at a time (io/event_pages.h) filters with
// it as selectEvents does.
class EventMatcher {
 public:
  // `phases`, when given, names the phases instead of tables.phases.
  EventMatcher(const Trace& tables, const EventFilter& filter, const PhaseNames* phases = nullptr);
  ~EventMatcher();
  EventMatcher(EventMatcher&&) noexcept;
  bool matches(Action action, Source source, Category category, int16_t device, uint32_t phase, uint32_t run,
               uint32_t stack, int64_t size) const;
  struct Term;  // what one term matches of each table

 private:
  std::vector<EventFilter::SizeTest> sizes_;
  std::vector<Term> terms_;
};

// Refuses a filter that does not parse (the message says what is wrong) and a trace of more
// events than a row index can hold; cancelled work returns an error saying so.
Result<EventRows> selectEvents(const Trace& trace, const EventQuery& query, Progress* progress = nullptr);

// What a sort by `column` compares, for the columns shown by name (source, action, category, phase,
// top frame): each name's rank in alphabetical order (empty for the others).
std::vector<uint64_t> sortRanks(const Trace& trace, EventColumn column);
// The phases' ranks from their names alone, in the order sortRanks gives them (by name, ties by id).
std::vector<uint64_t> phaseRanks(const PhaseNames& phases);
// An event's key in a sort by `column` (ascending; ties are the caller's to break, in event order).
uint64_t sortKey(const Event& e, uint64_t index, EventColumn column, const std::vector<uint64_t>& ranks);

}  // namespace sawtooth
