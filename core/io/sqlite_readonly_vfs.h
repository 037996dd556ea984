#pragma once
// A SQLite VFS under which reading a file writes nothing beside it. SQLite's own read-only mode
// still opens a -wal read-write (O_RDWR|O_CREAT) and, without a live writer, rewrites the -shm
// (ftruncate); this VFS opens the database, its -wal and any journal O_RDONLY, deletes nothing,
// and, for a file opened with the URI parameter private_shm=1, keeps the WAL index in the
// connection's own memory instead of a -shm file (what SQLite does in exclusive locking mode; for
// a -wal whose -shm is not there). A -shm that is there is read as SQLite reads one with
// readonly_shm=1: through a live writer's index, or, with no writer, by reading the -wal itself.
// Everything else (temporary files for sorting) goes to the default VFS unchanged.

namespace sawtooth::sql {

// The VFS's name for a URI's vfs= parameter; registered on first use.
const char* readOnlyVfs();

}  // namespace sawtooth::sql
