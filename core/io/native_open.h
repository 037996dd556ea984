#pragma once
// How a .sawtooth file is opened for reading without writing anything beside it. A finished file
// is opened immutable (no locks, no -wal or -shm created). A recording in progress or one that
// stopped uncleanly has a -wal beside it: with its -shm, SQLite reads both as any reader would;
// without it (SQLite would create one), or with a -journal to roll back, the files are copied to
// a private temporary folder and read there. A file in WAL mode whose -wal is missing is read
// as it is, and the reader says what is not there.

#include <memory>
#include <string>

#include "core/io/read_limits.h"
#include "core/io/sqlite_db.h"
#include "core/util/result.h"

namespace sawtooth::native {

struct Source {
  std::string path;         // as the user named it, for messages
  std::string uri;          // what SQLite opens
  bool writable = false;    // a private copy, which SQLite may recover in place
  std::string missing_wal;  // "NAME-wal" when the file is in WAL mode and that file is not beside it
  std::shared_ptr<void> private_copy;  // the temporary folder, removed with the last holder
};

Result<Source> planOpen(const std::string& path);
// A hardened read-only connection (sql::Database::openUntrusted) to the source.
Result<sql::Database> openSource(const Source& source, const std::shared_ptr<sql::Guard>& guard, const ReadLimits& limits);
// A guard for the queries of one read: the limits' deadline, and cancellation.
std::shared_ptr<sql::Guard> makeGuard(const ReadBudget& budget, const Progress* progress);

}  // namespace sawtooth::native
