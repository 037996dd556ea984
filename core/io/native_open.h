#pragma once
// How a .sawtooth file is opened for reading without writing anything beside it: every file
// SQLite opens beside the input is opened O_RDONLY (core/io/sqlite_readonly_vfs.h), nothing is
// created, truncated or deleted there. A finished file is opened immutable (no locks). A recording
// in progress, or one that stopped uncleanly, has a -wal beside it: with its -shm, SQLite reads
// the -shm read-only (a live writer's index; with no writer, the -wal itself); without it, the WAL
// index is kept in the connection's memory. A -wal larger than the journal limit is refused (the
// -wal is read whole when no writer keeps its index). A -journal to roll back means writing: the
// database and journal are copied to a private temporary folder, within the same limit, and read
// there. A file in WAL mode whose -wal is missing is read as it is, and the reader says what is
// not there.

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
  bool private_shm = false; // a -wal without its -shm: the WAL index in the connection's memory
  std::string missing_wal;  // "NAME-wal" when the file is in WAL mode and that file is not beside it
  std::shared_ptr<void> private_copy;  // the temporary folder, removed with the last holder
};

// Refuses a -wal, or a -journal with its database, past limits.max_journal bytes.
Result<Source> planOpen(const std::string& path, const ReadLimits& limits = {});
// A hardened read-only connection (sql::Database::openUntrusted) to the source.
Result<sql::Database> openSource(const Source& source, const std::shared_ptr<sql::Guard>& guard, const ReadLimits& limits);
// A guard for the queries of one read: the limits' deadline, and cancellation.
std::shared_ptr<sql::Guard> makeGuard(const ReadBudget& budget, const Progress* progress);

}  // namespace sawtooth::native
