#include "core/io/native_open.h"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <system_error>

#include <fmt/format.h>

#include "core/io/sqlite_readonly_vfs.h"
#include "core/util/format_bytes.h"

namespace sawtooth::native {
namespace {

namespace fs = std::filesystem;

// A folder of our own under the temporary directory, removed with everything in it.
struct TempFolder {
  fs::path dir;
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

uint64_t sizeOf(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

Status withinJournalLimit(const std::string& path, uint64_t bytes, std::string_view what, const ReadLimits& limits) {
  if (bytes <= limits.max_journal) return Ok{};
  return Error{fmt::format("{}: {} {} ({} bytes), more than the journal limit of {} ({})", path, what,
                           formatBytes(static_cast<int64_t>(std::min<uint64_t>(bytes, INT64_MAX))), bytes,
                           formatBytes(static_cast<int64_t>(std::min<uint64_t>(limits.max_journal, INT64_MAX))),
                           raiseHint("journal"))};
}

// file: URI of a path: every byte but the unreserved ones and '/' percent-encoded.
std::string fileUri(const std::string& path, std::string_view query) {
  std::string out = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  out += '?';
  out += query;
  return out;
}

Result<Source> privateCopy(const std::string& path, std::initializer_list<const char*> suffixes, const ReadLimits& limits) {
  uint64_t bytes = 0;
  for (const char* suffix : suffixes) bytes += sizeOf(path + suffix);
  if (Status st = withinJournalLimit(path, bytes, "rolling back its -journal means copying it with the database,", limits);
      !st)
    return st.error();
  std::string pattern = (fs::temp_directory_path() / "sawtooth-read-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    return Error{fmt::format("{}: cannot make a temporary folder to read its unfinished transaction", path)};
  auto folder = std::make_shared<TempFolder>();
  folder->dir = pattern;
  const fs::path copy = folder->dir / fs::path(path).filename();
  for (const char* suffix : suffixes) {
    std::error_code ec;
    if (!exists(path + suffix)) continue;
    fs::copy_file(path + suffix, copy.string() + suffix, ec);
    if (ec) return Error{fmt::format("{}: cannot copy {}{} to read it ({})", path, path, suffix, ec.message())};
  }
  Source source;
  source.path = path;
  source.uri = fileUri(copy.string(), "mode=rw");
  source.writable = true;
  source.private_copy = folder;
  return source;
}

}  // namespace

Result<Source> planOpen(const std::string& path, const ReadLimits& limits) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return Error{fmt::format("{}: not a regular file", path)};
  unsigned char header[100] = {};
  size_t got = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    got = std::fread(header, 1, sizeof header, f);
    std::fclose(f);
  } else {
    return Error{fmt::format("{}: cannot open", path)};
  }
  const char* vfs = sql::readOnlyVfs();
  if (!vfs) return Error{fmt::format("{}: SQLite refused Sawtooth's read-only file layer", path)};
  // Bytes 18 and 19 of the header: 2 when the database is in WAL mode.
  const bool wal_mode = got >= 20 && (header[18] == 2 || header[19] == 2);
  const std::string wal = path + "-wal", shm = path + "-shm", journal = path + "-journal";
  Source source;
  source.path = path;
  if (wal_mode && exists(wal)) {
    if (Status st = withinJournalLimit(path, sizeOf(wal), "its -wal file holds", limits); !st) return st.error();
    source.private_shm = !exists(shm);
    source.uri = fileUri(path, fmt::format("mode=ro&vfs={}&{}", vfs, source.private_shm ? "private_shm=1" : "readonly_shm=1"));
    return source;
  }
  if (!wal_mode && exists(journal)) return privateCopy(path, {"", "-journal"}, limits);
  source.uri = fileUri(path, fmt::format("mode=ro&immutable=1&vfs={}", vfs));
  if (wal_mode) source.missing_wal = fs::path(wal).filename().string();
  return source;
}

Result<sql::Database> openSource(const Source& source, const std::shared_ptr<sql::Guard>& guard, const ReadLimits& limits) {
  const int max_length = static_cast<int>(std::min<uint64_t>(limits.max_string_bytes, std::numeric_limits<int>::max()));
  return sql::Database::openUntrusted(source.path, source.uri, guard, max_length, source.writable);
}

std::shared_ptr<sql::Guard> makeGuard(const ReadBudget& budget, const Progress* progress) {
  auto guard = std::make_shared<sql::Guard>();
  guard->deadline = budget.deadline();
  guard->progress = progress;
  guard->time_message = budget.timeError().message;
  return guard;
}

}  // namespace sawtooth::native
