#include "core/io/native_allocator_start.h"

#include <sqlite3.h>

#include <set>

#include <fmt/format.h>

#include "core/analysis/allocator_baseline.h"
#include "core/analysis/allocator_machine.h"

namespace sawtooth {
namespace {

constexpr int kRounds = 3;  // AllocatorHistory::build's attempts

// Calls `each(event, index)` for every allocator event of the file, oldest or newest first.
template <typename Each>
Status scanAllocatorEvents(sql::Database& db, const Trace& tables, bool newest_first, uint64_t first_seq,
                           uint64_t total, Progress* progress, Each&& each) {
  auto st =
      db.prepare(fmt::format("SELECT seq, device, action, addr, size, stream, category, ifnull(stack, "
                             "-1) FROM events WHERE source = {} "
                             "ORDER BY seq {}",
                             static_cast<int>(Source::Allocator), newest_first ? "DESC" : "ASC"));
  if (!st) return st.error();
  const size_t stack_count = tables.stacks.stackCount();
  uint64_t done = 0;
  while (st->step()) {
    for (int column = 0; column < 8; ++column)
      if (st->type(column) != SQLITE_INTEGER)
        return Error{fmt::format("{}: event {}: a column that is not an integer", db.path(), st->int64(0))};
    const int64_t seq = st->int64(0), device = st->int64(1), action = st->int64(2), category = st->int64(6),
                  stack = st->int64(7);
    if (seq < static_cast<int64_t>(first_seq))
      return Error{fmt::format("{}: event {} comes before the first", db.path(), seq)};
    if (device < INT16_MIN || device > INT16_MAX) continue;  // no summaries for it
    if (action < 0 || action >= kActionCount || category < 0 || category >= kCategoryCount)
      return Error{fmt::format("{}: event {} has an unknown action or category code", db.path(), seq)};
    Event e;
    e.device = static_cast<DeviceId>(device);
    e.source = Source::Allocator;
    e.action = static_cast<Action>(action);
    e.addr = static_cast<uint64_t>(st->int64(3));
    e.size = st->int64(4);
    e.stream = static_cast<uint64_t>(st->int64(5));
    e.category = static_cast<Category>(category);
    e.stack = stack >= 0 && static_cast<uint64_t>(stack) < stack_count ? static_cast<uint32_t>(stack) : kNoStack;
    each(e, static_cast<uint64_t>(seq) - first_seq);
    if ((++done & 0xffff) == 0 && progress) {
      if (progress->cancelled()) return Error{"cancelled"};
      progress->report(done, total);
    }
  }
  if (st->failed()) return Error{st->error()};
  return Ok{};
}

Result<int64_t> single(sql::Database& db, const char* sql) {
  auto st = db.prepare(sql);
  if (!st) return st.error();
  int64_t value = 0;
  if (st->step()) value = st->int64(0);
  if (st->failed()) return Error{st->error()};
  return value;
}

}  // namespace

Result<AllocatorStarts> streamedAllocatorStarts(sql::Database& db, const Trace& tables, Progress* progress) {
  const AllocatorSettings settings = allocatorSettings(tables);
  // Every device the whole trace would list (Trace::deviceIds): its tables' and its events'.
  std::set<int16_t> devices;
  for (DeviceId d : tables.deviceIds())
    if (d >= INT16_MIN && d <= INT16_MAX) devices.insert(static_cast<int16_t>(d));
  {
    auto st = db.prepare("SELECT DISTINCT device FROM events");
    if (!st) return st.error();
    while (st->step())
      if (st->type(0) == SQLITE_INTEGER && st->int64(0) >= INT16_MIN && st->int64(0) <= INT16_MAX)
        devices.insert(static_cast<int16_t>(st->int64(0)));
    if (st->failed()) return Error{st->error()};
  }
  auto first = single(db, "SELECT ifnull(min(seq), 0) FROM events");
  if (!first) return first.error();
  auto count = single(db, "SELECT count(*) FROM events");
  if (!count) return count.error();
  const auto first_seq = static_cast<uint64_t>(std::max<int64_t>(*first, 0));
  const auto total = static_cast<uint64_t>(*count);

  std::map<int16_t, std::map<uint64_t, int64_t>> known;
  std::map<int16_t, AllocatorStart> starts;
  std::set<int16_t> pending = devices;
  for (int round = 0; round < kRounds && !pending.empty(); ++round) {
    std::map<int16_t, AllocatorStartWalk> walks;
    for (int16_t d : pending) walks.emplace(d, AllocatorStartWalk(tables, d, settings));
    Status st = scanAllocatorEvents(db, tables, true, first_seq, total, progress, [&](const Event& e, uint64_t i) {
      if (auto w = walks.find(static_cast<int16_t>(e.device)); w != walks.end()) w->second.undo(e, i);
    });
    if (!st) return st.error();
    for (int16_t d : pending) starts[d] = walks.at(d).finish(known[d]);
    if (round + 1 == kRounds) break;
    // Only a block whose size was guessed can be pinned down (AllocatorMachine::resolutions).
    std::erase_if(pending, [&](int16_t d) { return starts[d].inferred_blocks == 0; });
    if (pending.empty()) break;
    // Forward from those starts: the sizes the events pin down, for another round where any is new.
    std::map<int16_t, AllocatorMachine> machines;
    for (int16_t d : pending) machines.emplace(d, AllocatorMachine(settings)).first->second.reset(starts[d].state);
    st = scanAllocatorEvents(db, tables, false, first_seq, total, progress, [&](const Event& e, uint64_t i) {
      if (auto m = machines.find(static_cast<int16_t>(e.device)); m != machines.end()) m->second.apply(e, i);
    });
    if (!st) return st.error();
    std::set<int16_t> learned;
    for (auto& [d, machine] : machines) {
      bool any = false;
      for (const auto& [addr, size] : machine.resolutions()) any |= known[d].insert_or_assign(addr, size).second;
      if (any) learned.insert(d);
    }
    pending = std::move(learned);
  }
  AllocatorStarts out;
  for (auto& [d, start] : starts) {
    AllocatorState state = std::move(start.state);
    state.position = -1;
    state.event = kBeforeTrace;
    out[d] = {std::move(state), settings};
  }
  return out;
}

}  // namespace sawtooth
