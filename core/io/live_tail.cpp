#include "core/io/live_tail.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "core/io/native_open.h"
#include "core/io/native_schema.h"
#include "core/io/native_schema_check.h"
#include "core/io/output_claim.h"

namespace sawtooth {
namespace {

// A recorder claims its path first and makes the database a moment later: until the header is
// there, there is nothing to read yet (not an error).
bool looksLikeDatabase(const std::string& path) {
  char header[16] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  const size_t got = std::fread(header, 1, sizeof header, f);
  std::fclose(f);
  return got == sizeof header && std::memcmp(header, native::kSqliteMagic.data(), native::kSqliteMagic.size()) == 0;
}

bool isRetryable(const std::string& message) {
  // The writer may hold the file for a moment (a checkpoint, leaving WAL mode at the end).
  return message.find("locked") != std::string::npos || message.find("busy") != std::string::npos;
}

Status readDevices(sql::Database& db, const std::string& path, std::vector<LiveDevice>& out) {
  auto st = db.prepare(
      "SELECT device, ifnull(name, ''), ifnull(baseline_allocated, 0), ifnull(baseline_reserved, 0) FROM devices "
      "ORDER BY device LIMIT 4096");
  if (!st) return st.error();
  while (st->step()) {
    if (st->type(0) != SQLITE_INTEGER || st->type(1) != SQLITE_TEXT || st->type(2) != SQLITE_INTEGER ||
        st->type(3) != SQLITE_INTEGER)
      return Error{fmt::format("{}: a row of the devices table holds a value of the wrong type", path)};
    const int64_t device = st->int64(0);
    if (device < kCpuDevice || device > INT32_MAX)
      return Error{fmt::format("{}: device {} is not a device (-1 for the CPU, 0 and up for GPUs)", path, device)};
    LiveDevice d;
    d.device = static_cast<DeviceId>(device);
    d.name = std::string(st->text(1).substr(0, 256));
    d.baseline_allocated = st->int64(2);
    d.baseline_reserved = st->int64(3);
    out.push_back(std::move(d));
  }
  if (st->failed()) return Error{st->error()};
  return Ok{};
}

// A count the recorder keeps in the meta table (text of a non-negative integer): none when absent or
// not such a count (the file is data).
Result<std::optional<uint64_t>> metaCount(sql::Database& db, std::string_view key) {
  auto st = db.prepare("SELECT value FROM meta WHERE key = ?1");
  if (!st) return st.error();
  st->bind(1, key);
  std::optional<uint64_t> out;
  if (st->step() && st->type(0) == SQLITE_TEXT) {
    const std::string text(st->text(0).substr(0, 32));
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
    if (end != text.c_str() && *end == '\0' && errno == 0 && text.find('-') == std::string::npos) out = n;
  }
  if (st->failed()) return Error{st->error()};
  return out;
}

}  // namespace

LiveTail::LiveTail(std::string path, size_t max_rows, double max_seconds)
    : path_(std::move(path)), max_rows_(max_rows), max_seconds_(max_seconds) {}

Result<LiveBatch> LiveTail::poll(size_t max_rows) {
  LiveBatch batch;
  // Asked first: a recorder that has let go of its file committed everything before it did, so
  // the rows read after this are all there will be.
  const bool writer_gone = !isBeingWritten(path_);
  if (!looksLikeDatabase(path_)) return batch;
  auto source = native::planOpen(path_);
  if (!source) return source.error();
  // A -wal without its -shm (or a -journal, read from a private copy) cannot be followed while a
  // writer holds it: wait until the writer lets go, then read it once.
  if ((source->private_shm || source->private_copy) && !writer_gone) return batch;
  auto guard = std::make_shared<sql::Guard>();
  guard->deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(max_seconds_));
  guard->time_message = fmt::format("reading the new events took more than {} s", max_seconds_);
  auto db = native::openSource(*source, guard, ReadLimits{});
  if (!db) return isRetryable(db.error().message) ? Result<LiveBatch>(batch) : Result<LiveBatch>(db.error());
  auto tables = native::checkSchema(*db);
  if (!tables) {
    // Tables not made yet: the recorder is still setting the file up.
    if (isRetryable(tables.error().message) || tables.error().message.find("(no '") != std::string::npos)
      return batch;
    return tables.error();
  }
  if (!tables->count("events")) return batch;
  // One read transaction: the rows and the devices come from the same commit.
  if (Status begin = db->exec("BEGIN"); !begin) return isRetryable(begin.error().message) ? Result<LiveBatch>(batch) : begin.error();
  batch.ready = true;
  if (tables->count("devices"))
    if (Status st = readDevices(*db, path_, batch.devices); !st) return st.error();
  if (tables->count("meta")) {
    auto window_events = metaCount(*db, "window.last_events");
    if (!window_events) return window_events.error();
    batch.window_events = window_events->value_or(0);
    auto first_kept = metaCount(*db, "window.first_kept_seq");
    if (!first_kept) return first_kept.error();
    if (*first_kept && last_seq_ != INT64_MIN && *first_kept > static_cast<uint64_t>(last_seq_) + 1) {
      batch.fell_behind = true;
      (void)db->exec("COMMIT");
      return batch;
    }
  }
  auto st = db->prepare("SELECT seq, t_ns, device, source, action, size FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2");
  if (!st) return st.error();
  const size_t limit = std::min(max_rows, max_rows_);
  st->bind(1, last_seq_).bind(2, static_cast<int64_t>(limit));
  static constexpr const char* kColumns[] = {"seq", "t_ns", "device", "source", "action", "size"};
  while (st->step()) {
    for (int column = 0; column < 6; ++column)
      if (st->type(column) != SQLITE_INTEGER && !(column == 5 && st->type(column) == SQLITE_NULL))
        return Error{fmt::format("{}: event {}: '{}' is not an integer", path_, rows_read_, kColumns[column])};
    const int64_t seq = st->int64(0), device = st->int64(2), source_code = st->int64(3), action = st->int64(4);
    if (device < kCpuDevice || device > INT32_MAX)
      return Error{fmt::format("{}: event {}: device {} is not a device", path_, seq, device)};
    if (source_code < 0 || source_code >= kSourceCount || action < 0 || action >= kActionCount)
      return Error{fmt::format("{}: event {} has an unknown source or action code", path_, seq)};
    const int64_t size = st->isNull(5) ? 0 : st->int64(5);
    if (size < 0) return Error{fmt::format("{}: event {} has a negative size ({} bytes)", path_, seq, size)};
    batch.rows.push_back(LiveRow{st->int64(1), static_cast<DeviceId>(device), static_cast<Source>(source_code),
                                 static_cast<Action>(action), size});
    last_seq_ = seq;
  }
  if (st->failed()) return Error{st->error()};
  (void)db->exec("COMMIT");
  rows_read_ += batch.rows.size();
  batch.more = batch.rows.size() == limit && limit > 0;
  batch.complete = writer_gone && !batch.more;
  return batch;
}

}  // namespace sawtooth
