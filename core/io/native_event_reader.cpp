#include "core/io/native_event_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <sqlite3.h>

#include "core/io/sqlite_db.h"

namespace sawtooth {
namespace {

struct Range {
  size_t begin = 0;
  size_t end = 0;
};

constexpr const char* kColumns[] = {"t_ns",     "device", "source", "action", "addr", "size", "stream",
                                    "category", "phase",  "stack",  "run",    "module", "pass"};

class RangeReader {
 public:
  RangeReader(const native::Source& source, const std::shared_ptr<sql::Guard>& guard, const ReadLimits& limits,
              const EventColumns& columns, EventStore& events, size_t first_seq)
      : source_(source), path_(source.path), guard_(guard), limits_(limits), columns_(columns), events_(events),
        first_seq_(first_seq) {}

  // Reads rows with seq in [range.begin, range.end) into events_[seq]. Returns "" or the error.
  // `progress`, for one reader only, reports every reader's rows and turns cancellation into stop.
  std::string read(Range range, std::atomic<size_t>& rows_done, std::atomic<bool>& stop, Progress* progress,
                   size_t total) const {
    auto db = native::openSource(source_, guard_, limits_);
    if (!db) return db.error().message;
    // seq is the INTEGER PRIMARY KEY: the rows come in seq order, each seq once. The range is
    // dense exactly when it holds end - begin rows, which is checked at the end instead of
    // decoding seq on every row. NULLs (no phase, stack or run) read as -1.
    auto st = db->prepare(fmt::format("SELECT {} FROM events WHERE seq >= ?1 AND seq < ?2 ORDER BY seq",
                                      eventColumnsSql(columns_.modules)));
    if (!st) return st.error().message;
    st->bind(1, static_cast<int64_t>(range.begin)).bind(2, static_cast<int64_t>(range.end));
    size_t next = range.begin;
    size_t unreported = 0;
    while (st->step()) {
      if (next == range.end)  // only a corrupt b-tree repeats a rowid
        return fmt::format("{}: more events than sequence numbers in [{}, {}) (corrupt file?)", path_, range.begin,
                           range.end);
      Event e;
      if (std::string wrong = decodeEventRow(*st, columns_, next, path_, e); !wrong.empty()) return wrong;
      events_.set(next++ - first_seq_, e);
      if (++unreported == 0x10000) {
        rows_done += unreported;
        unreported = 0;
        if (progress) {
          if (progress->cancelled()) stop = true;
          progress->report(rows_done.load(), total);
        }
        if (stop.load(std::memory_order_relaxed)) return "stopped";
      }
    }
    rows_done += unreported;
    if (st->failed()) return st->error();
    if (next != range.end)
      return fmt::format("{}: event sequence numbers are not dense ({} events with seq in [{}, {}))", path_,
                         next - range.begin, range.begin, range.end);
    return {};
  }

 private:
  const native::Source& source_;
  const std::string& path_;
  const std::shared_ptr<sql::Guard>& guard_;
  const ReadLimits& limits_;
  const EventColumns& columns_;
  EventStore& events_;
  size_t first_seq_;  // a recording of the last N events starts later than 0 until it is finished
};

// Asks the kernel to start reading the whole file in the background, so that a cold file is
// mostly in the page cache by the time the readers reach each part of it.
void prefetch(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
  ::close(fd);
}

}  // namespace

std::string eventColumnsSql(bool modules) {
  // NULLs (no phase, stack or run) read as -1.
  return fmt::format("t_ns, device, source, action, addr, size, stream, category, ifnull(phase, -1), ifnull(stack, -1), "
                     "ifnull(run, -1){}",
                     modules ? ", ifnull(module, -1), ifnull(pass, 0)" : "");
}

std::string decodeEventRow(sql::Statement& st, const EventColumns& columns, uint64_t seq, const std::string& path,
                           Event& e, int first_column) {
  const int c = first_column;
  const int column_count = columns.modules ? 13 : 11;
  // A file is data: every column holds an integer (NULLs read as -1: eventColumnsSql), every device is
  // the CPU's -1 or a GPU's ordinal within 32 bits.
  for (int column = 0; column < column_count; ++column)
    if (st.type(c + column) != SQLITE_INTEGER)
      return fmt::format("{}: event {}: '{}' is {}, where Sawtooth writes an integer", path, seq, kColumns[column],
                         st.type(c + column) == SQLITE_TEXT   ? "text"
                         : st.type(c + column) == SQLITE_BLOB ? "a blob"
                         : st.type(c + column) == SQLITE_NULL ? "NULL"
                                                          : "a real number");
  const int64_t device = st.int64(c + 1);
  if (device < kCpuDevice || device > INT32_MAX)
    return fmt::format("{}: event {}: device {} is not a device (-1 for the CPU, 0 and up for GPUs)", path, seq,
                       device);
  e.t_ns = st.int64(c + 0);
  e.device = static_cast<DeviceId>(device);
  const int64_t source = st.int64(c + 2), action = st.int64(c + 3), category = st.int64(c + 7);
  if (source < 0 || source >= kSourceCount || action < 0 || action >= kActionCount || category < 0 ||
      category >= kCategoryCount)
    return fmt::format("{}: event {} has an unknown source, action or category code", path, seq);
  e.source = static_cast<Source>(source);
  e.action = static_cast<Action>(action);
  e.addr = static_cast<uint64_t>(st.int64(c + 4));
  e.size = st.int64(c + 5);
  e.stream = static_cast<uint64_t>(st.int64(c + 6));
  e.category = static_cast<Category>(category);
  const int64_t phase = st.int64(c + 8), stack = st.int64(c + 9), run = st.int64(c + 10);
  e.phase = phase >= 0 && static_cast<uint64_t>(phase) < columns.phase_count ? static_cast<uint32_t>(phase) : kNoPhase;
  e.stack = stack >= 0 && static_cast<uint64_t>(stack) < columns.stack_count ? static_cast<uint32_t>(stack) : kNoStack;
  e.run = run >= 0 && run < kNoRun ? static_cast<uint16_t>(run) : kNoRun;
  if (columns.modules) {
    // Unlike a phase or a stack, a module past the tree is refused: the tree is what the
    // bytes are accounted against, and an event outside it would make them not add up.
    const int64_t module = st.int64(c + 11), pass = st.int64(c + 12);
    if (module < -1 || (module >= 0 && static_cast<uint64_t>(module) >= columns.module_count))
      return fmt::format("{}: event {}: module {} is past the module tree ({} modules)", path, seq, module,
                         columns.module_count);
    if (pass < 0 || pass >= kPassCount)
      return fmt::format("{}: event {}: pass {} is not a pass (1 to {}, or NULL)", path, seq, pass, kPassCount - 1);
    e.module = module < 0 ? kNoModule : static_cast<uint32_t>(module);
    e.pass = static_cast<Pass>(pass);
  }
  return {};
}

Status readEventRows(const native::Source& source, const std::shared_ptr<sql::Guard>& guard, ReadBudget& budget,
                     const EventColumns& columns, EventStore& events, Progress* progress,
                     const EventReadOptions& options) {
  const std::string& path = source.path;
  prefetch(path);
  size_t total = 0, first_seq = 0;
  {
    auto db = native::openSource(source, guard, budget.limits());
    if (!db) return db.error();
    // count(*) bounds the memory by the rows really there; max(seq), read at the b-tree's right
    // edge, tells at once whether they can be dense. Each range reader checks its own part.
    // (Two statements: SQLite optimizes each aggregate only when it stands alone.)
    auto count = db->prepare("SELECT count(*) FROM events");
    if (!count) return count.error();
    total = static_cast<size_t>(count->step() ? count->int64(0) : 0);
    if (count->failed()) return Error{count->error()};
    auto first = db->prepare("SELECT min(seq) FROM events");
    if (!first) return first.error();
    if (first->step() && total > 0) first_seq = static_cast<size_t>(std::max<int64_t>(first->int64(0), 0));
    if (first->failed()) return Error{first->error()};
    auto last = db->prepare("SELECT max(seq) FROM events");
    if (!last) return last.error();
    if (last->step() && total > 0 && last->int64(0) != static_cast<int64_t>(first_seq + total) - 1)
      return Error{fmt::format("{}: event sequence numbers are not dense ({} events, the last seq {})", path, total,
                               last->int64(0))};
    if (last->failed()) return Error{last->error()};
  }
  if (total > budget.limits().max_events)
    return Error{fmt::format("{}: {} events, more than the events limit ({}; {})", path, total, budget.limits().max_events,
                             raiseHint("events"))};
  const bool keep_modules = columns.modules && columns.module_count > 0;
  const uint64_t event_bytes = keep_modules ? 54 : 49;
  if (!budget.take(uint64_t{total} * event_bytes))
    return Error{fmt::format("{}: {}", path, budget.memoryError(fmt::format("its {} events", total)).message)};

  unsigned threads = options.threads ? options.threads : std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  threads = static_cast<unsigned>(
      std::clamp<size_t>(total / std::max<size_t>(options.min_rows_per_thread, 1), 1, threads));
  std::vector<Range> ranges(threads);
  for (unsigned k = 0; k < threads; ++k)
    ranges[k] = {first_seq + total * k / threads, first_seq + total * (k + 1) / threads};

  events.clear();
  if (keep_modules) events.enableModules();  // before the threads: set() then fills the columns
  events.resize(total);
  const RangeReader reader(source, guard, budget.limits(), columns, events, first_seq);
  std::vector<std::string> errors(threads);
  std::atomic<size_t> rows_done{0};
  std::atomic<bool> stop{false};
  auto work = [&](unsigned k) {
    errors[k] = reader.read(ranges[k], rows_done, stop, k == 0 ? progress : nullptr, total);
    if (!errors[k].empty()) stop = true;
  };
  std::vector<std::thread> workers;
  for (unsigned k = 1; k < threads; ++k) workers.emplace_back(work, k);
  work(0);  // the calling thread reads the first range and reports progress
  for (auto& w : workers) w.join();
  if (progress && progress->cancelled()) return Error{"cancelled"};
  for (const std::string& e : errors)
    if (!e.empty() && e != "stopped") return Error{e};
  return Ok{};
}

}  // namespace sawtooth
