#pragma once
// A .sawtooth file's schema is checked, never trusted: every table the reader touches must be a
// plain table (not a view, not a virtual table) with exactly the columns and declared types of
// io/native_schema.h, before any query reads it. A view with a recursive CTE in place of
// `events`, or a column `size TEXT`, is refused here with what was found.

#include <set>
#include <string>

#include "core/io/sqlite_db.h"
#include "core/util/result.h"

namespace sawtooth::native {

// The names of the format's tables the file holds (meta and events are required; for a cache
// file of summaries, meta and summary_series). A table may hold the columns of an older format
// version (they only ever grow at the end).
enum class SchemaOf { Trace, Summaries };
Result<std::set<std::string>> checkSchema(sql::Database& db, SchemaOf of = SchemaOf::Trace);
// Once the file's format version is known: each table holds exactly the columns that version
// writes (a format 1 file with a module column, or a format 2 file without one, is refused).
Status checkColumnsOfVersion(sql::Database& db, const std::set<std::string>& present, int version);

}  // namespace sawtooth::native
