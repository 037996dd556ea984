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

// The names of the format's tables the file holds (meta and events are required).
Result<std::set<std::string>> checkSchema(sql::Database& db);

}  // namespace sawtooth::native
