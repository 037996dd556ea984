#include "core/io/summary_cache.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "core/io/native_allocator_start.h"
#include "core/io/native_event_reader.h"
#include "core/io/native_format.h"
#include "core/io/native_open.h"
#include "core/io/native_schema.h"
#include "core/io/native_schema_check.h"
#include "core/io/output_claim.h"
#include "core/model/meta_keys.h"

namespace sawtooth {
namespace {

namespace fs = std::filesystem;

constexpr size_t kKeyBytes = size_t{1} << 20;  // hashed from the start and from the end of a file
constexpr std::string_view kSourceKey = "summary.source_key";
constexpr std::string_view kSourcePath = "summary.source";
constexpr std::string_view kReason = "summary.reason";

uint64_t fnv1a(uint64_t h, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

Result<std::string> contentKey(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error{fmt::format("{}: cannot read it", path)};
  uint64_t h = 0xcbf29ce484222325ULL;
  const int64_t fields[] = {static_cast<int64_t>(st.st_size), static_cast<int64_t>(st.st_mtim.tv_sec),
                            static_cast<int64_t>(st.st_mtim.tv_nsec)};
  h = fnv1a(h, reinterpret_cast<const unsigned char*>(fields), sizeof fields);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Error{fmt::format("{}: cannot open", path)};
  std::vector<unsigned char> buffer(kKeyBytes);
  size_t got = std::fread(buffer.data(), 1, buffer.size(), f);
  h = fnv1a(h, buffer.data(), got);
  if (static_cast<uint64_t>(st.st_size) > 2 * kKeyBytes && std::fseek(f, -static_cast<long>(kKeyBytes), SEEK_END) == 0) {
    got = std::fread(buffer.data(), 1, buffer.size(), f);
    h = fnv1a(h, buffer.data(), got);
  }
  std::fclose(f);
  return fmt::format("{:016x}", h);
}

// A read-only connection to a trace file (nothing written beside it), bounded by cancellation only:
// building summaries reads every event, however long that takes.
struct Opened {
  native::Source source;
  std::shared_ptr<sql::Guard> guard;
  sql::Database db;
};
Result<Opened> openReadOnly(const std::string& path, Progress* progress) {
  auto source = native::planOpen(path);
  if (!source) return source.error();
  auto guard = std::make_shared<sql::Guard>();
  guard->progress = progress;
  auto db = native::openSource(*source, guard, ReadLimits{});
  if (!db) return db.error();
  return Opened{std::move(*source), guard, std::move(*db)};
}

Result<std::string> metaValue(sql::Database& db, std::string_view key) {
  auto st = db.prepare("SELECT value FROM meta WHERE key = ?");
  if (!st) return st.error();
  st->bind(1, key);
  std::string value;
  if (st->step()) value = std::string(st->text(0));
  if (st->failed()) return Error{st->error()};
  return value;
}

// The allocator's state when a snapshot's trace began is inferred from the segments at its end
// and every event before, streamed from the file (the events are never all in memory).
Result<native::RebuildOptions> rebuildOptionsFor(const std::string& path, sql::Database& db) {
  native::RebuildOptions options;
  auto known = metaValue(db, meta::kSegmentsKnown);
  if (!known) return known.error();
  if (*known != "true") return options;
  EventReadOptions without_events;
  without_events.events = false;
  auto tables = readNative(path, nullptr, without_events);
  if (!tables) return tables.error();
  auto starts = streamedAllocatorStarts(db, *tables);
  if (!starts) return starts.error();
  options.allocator_starts = std::move(*starts);
  return options;
}

Status createSummaryTables(sql::Database& db) {
  std::string sql;
  for (const std::string& name : native::summaryTables())
    if (!db.hasTable(name)) sql += native::createTableSql(*native::findTable(name));
  for (const std::string& name : native::laterSummaryTables())
    if (!db.hasTable(name)) sql += native::createTableSql(*native::findTable(name));
  return sql.empty() ? Status(Ok{}) : db.exec(sql);
}

// A copy of an older file holds its tables as its version wrote them: the columns later versions
// append (Column::since; all of them may be null) are added, so that it reads as the version it
// becomes.
Status addLaterColumns(sql::Database& db, int version) {
  auto present = native::checkSchema(db);
  if (!present) return present.error();
  std::string sql;
  for (const native::Table& table : native::tables()) {
    if (!present->count(std::string(table.name))) continue;
    for (const native::Column& c : table.columns) {
      if (c.since <= version) continue;
      if (c.not_null || c.primary_key)
        return Error{fmt::format("{}: table '{}' cannot take format {}'s column '{}' (not null)", db.path(), table.name,
                                 c.since, c.name)};
      sql += fmt::format("ALTER TABLE \"{}\" ADD COLUMN \"{}\" {};", table.name, c.name, native::typeName(c.type));
    }
  }
  return sql.empty() ? Status(Ok{}) : db.exec(sql);
}

Status summariseInto(sql::Database& db, const native::RebuildOptions& options, Progress* progress);

}  // namespace

Result<std::string> fileContentKey(const std::string& path) { return contentKey(path); }

std::string summaryCacheDir() {
  fs::path base;
  if (const char* own = std::getenv("SAWTOOTH_CACHE_DIR"); own && *own) base = own;
  else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) base = fs::path(xdg) / "sawtooth";
  else if (const char* home = std::getenv("HOME"); home && *home) base = fs::path(home) / ".cache" / "sawtooth";
  else base = fs::temp_directory_path() / "sawtooth-cache";
  return (base / "summaries").string();
}

Result<std::string> summaryCachePath(const std::string& path) {
  auto key = contentKey(path);
  if (!key) return key.error();
  return (fs::path(summaryCacheDir()) / (*key + ".sawtooth-summaries")).string();
}

Result<std::optional<SummaryPlace>> findSummaries(const std::string& path, std::string* why) {
  auto opened = openReadOnly(path, nullptr);
  if (!opened) return opened.error();
  sql::Database& db = opened->db;
  auto version = metaValue(db, meta::kFormatVersion);
  if (!version) return version.error();
  std::string reason;
  if (std::atoi(version->c_str()) >= native::kFirstSummaryVersion) {
    auto quick = native::quickSummaryCheck(db, db);
    if (!quick) return quick.error();
    if (quick->empty()) return std::optional<SummaryPlace>(SummaryPlace{path, path, false, {}});
    reason = *quick;
  } else {
    reason = fmt::format("it is of format {}, from before files kept summaries", *version);
  }
  if (why) *why = reason;
  auto cache = summaryCachePath(path);
  if (!cache) return cache.error();
  std::error_code ec;
  if (!fs::exists(*cache, ec)) return std::optional<SummaryPlace>();
  auto cached = openReadOnly(*cache, nullptr);
  if (!cached) return std::optional<SummaryPlace>();  // rebuilt
  auto key = metaValue(cached->db, kSourceKey);
  auto expected = contentKey(path);
  if (!key || !expected || *key != *expected) return std::optional<SummaryPlace>();
  auto quick = native::quickSummaryCheck(db, cached->db);
  if (!quick || !quick->empty()) return std::optional<SummaryPlace>();
  auto cached_why = metaValue(cached->db, kReason);
  return std::optional<SummaryPlace>(SummaryPlace{path, *cache, true, cached_why ? *cached_why : reason});
}

Result<SummaryPlace> buildCachedSummaries(const std::string& path, const std::string& why, Progress* progress) {
  auto cache = summaryCachePath(path);
  if (!cache) return cache.error();
  auto key = contentKey(path);
  if (!key) return key.error();
  std::error_code ec;
  fs::create_directories(fs::path(*cache).parent_path(), ec);
  if (ec) return Error{fmt::format("{}: cannot make the cache folder ({})", fs::path(*cache).parent_path().string(), ec.message())};
  const std::string temp = fmt::format("{}.{}.partial", *cache, ::getpid());
  fs::remove(temp, ec);
  auto opened = openReadOnly(path, progress);
  if (!opened) return opened.error();
  auto options = rebuildOptionsFor(path, opened->db);
  if (!options) return options.error();
  {
    auto out = sql::Database::open(temp, sql::Database::Mode::Create);
    if (!out) return out.error();
    Status st = out->exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-32768;");
    if (st) st = out->exec(native::createTableSql(*native::findTable("meta")));
    if (st) st = createSummaryTables(*out);
    if (st) st = out->exec("BEGIN");
    if (!st) return st.error();
    auto covered = native::rebuildSummaries(opened->db, *out, *options, progress);
    if (!covered) {
      fs::remove(temp, ec);
      return covered.error();
    }
    auto set = out->prepare("INSERT OR REPLACE INTO meta VALUES(?, ?)");
    if (!set) return set.error();
    for (const auto& [k, v] : {std::pair{std::string(meta::kFormatVersion), std::to_string(native::kFormatVersion)},
                               std::pair{std::string(meta::kSummaryEvents), std::to_string(*covered)},
                               std::pair{std::string(kSourceKey), *key}, std::pair{std::string(kSourcePath), path},
                               std::pair{std::string(kReason), why}})
      if (Status s = set->bind(1, k).bind(2, v).run(); !s) return s.error();
    if (Status s = out->exec("COMMIT"); !s) return s.error();
  }
  fs::rename(temp, *cache, ec);
  if (ec) return Error{fmt::format("{}: cannot keep the summaries there ({})", *cache, ec.message())};
  return SummaryPlace{path, *cache, true, why};
}

Result<SummaryPlace> summariesOf(const std::string& path, Progress* progress) {
  std::string why;
  auto found = findSummaries(path, &why);
  if (!found) return found.error();
  if (*found) return **found;
  return buildCachedSummaries(path, why, progress);
}

Result<SummaryVerdict> verifySummaries(const SummaryPlace& place, Progress* progress) {
  auto events = openReadOnly(place.events, progress);
  if (!events) return events.error();
  std::optional<Opened> cached;
  if (place.summaries != place.events) {
    auto c = openReadOnly(place.summaries, progress);
    if (!c) return c.error();
    cached.emplace(std::move(*c));
  }
  sql::Database& summaries = cached ? cached->db : events->db;
  auto options = rebuildOptionsFor(place.events, events->db);
  if (!options) return options.error();
  auto check = native::checkSummaries(events->db, summaries, *options, progress);
  if (!check) return check.error();
  SummaryVerdict verdict;
  verdict.check = *check;
  if (check->agree()) return verdict;
  const std::string why =
      check->covered != check->events
          ? fmt::format("its summaries cover {} events where it holds {}", check->covered, check->events)
          : fmt::format("its summaries disagree with its events ({} rows; the first: {})", check->differences,
                        check->first_differences.empty() ? std::string() : check->first_differences.front());
  auto rebuilt = buildCachedSummaries(place.events, why, progress);
  if (!rebuilt) return rebuilt.error();
  verdict.rebuilt = *rebuilt;
  return verdict;
}

Status upgradeNative(const std::string& in, const std::string& out, Progress* progress) {
  auto source = openReadOnly(in, progress);
  if (!source) return source.error();
  auto claim = OutputClaim::claim(out, OutputClaim::Existing::Replace);
  if (!claim) return claim.error();
  if (Status st = claim->empty(); !st) return st;
  auto options = rebuildOptionsFor(in, source->db);
  if (!options) return options.error();
  auto db = sql::Database::open(out, sql::Database::Mode::Create);
  if (!db) return db.error();
  // The database as it is, page by page (a recording in progress as its readers see it).
  sqlite3_backup* backup = sqlite3_backup_init(db->handle(), "main", source->db.handle(), "main");
  if (!backup) return Error{fmt::format("{}: {}", out, sqlite3_errmsg(db->handle()))};
  int rc = SQLITE_OK;
  while ((rc = sqlite3_backup_step(backup, 4096)) == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
    if (progress && progress->cancelled()) break;
  }
  sqlite3_backup_finish(backup);
  if (progress && progress->cancelled()) return Error{"cancelled"};
  if (rc != SQLITE_DONE) return Error{fmt::format("{}: copying {}: {}", out, in, sqlite3_errstr(rc))};
  auto version = metaValue(*db, meta::kFormatVersion);
  if (!version) return version.error();
  Status st = db->exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF;");
  if (st) st = addLaterColumns(*db, std::max(1, std::atoi(version->c_str())));
  if (!st) return st;
  return summariseInto(*db, *options, progress);
}

Status summariseWritten(const std::string& path, Progress* progress) {
  auto db = sql::Database::open(path, sql::Database::Mode::Create);
  if (!db) return db.error();
  auto options = rebuildOptionsFor(path, *db);
  if (!options) return options.error();
  if (Status st = db->exec("PRAGMA synchronous=OFF"); !st) return st;
  return summariseInto(*db, *options, progress);
}

namespace {

// The summary tables filled from the file's own events, and the file marked as of this format.
Status summariseInto(sql::Database& db, const native::RebuildOptions& options, Progress* progress) {
  Status st = createSummaryTables(db);
  if (st) st = db.exec("BEGIN");
  if (!st) return st;
  auto covered = native::rebuildSummaries(db, db, options, progress);
  if (!covered) return covered.error();
  auto set = db.prepare("INSERT OR REPLACE INTO meta VALUES(?, ?)");
  if (!set) return set.error();
  for (const auto& [k, v] : {std::pair{std::string(meta::kFormatVersion), std::to_string(native::kFormatVersion)},
                             std::pair{std::string(meta::kSummaryEvents), std::to_string(*covered)}})
    if (Status s = set->bind(1, k).bind(2, v).run(); !s) return s;
  if (Status s = db.exec(fmt::format("PRAGMA user_version={}", native::kFormatVersion)); !s) return s;
  return db.exec("COMMIT");
}

}  // namespace

}  // namespace sawtooth
