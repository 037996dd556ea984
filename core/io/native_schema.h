#pragma once
// The .sawtooth file's tables, defined once: the writer creates them from this description and
// the readers check a file against it (a file is data: its schema is verified, never trusted).

#include <span>
#include <string>
#include <string_view>

namespace sawtooth::native {

// Format versions: 1, events and what describes them; 2, the module tree (modules,
// module_calls, pass_names) and each event's module and pass; 3, the summaries a file of any
// length opens from (summary_* tables; docs/sawtooth-format.md). A reader opens every version up
// to its own; a table of an older file holds the columns its version wrote (new columns are only
// ever appended: Column::since).
inline constexpr int kFormatVersion = 3;
inline constexpr int kFirstModuleVersion = 2;
inline constexpr int kFirstSummaryVersion = 3;
inline constexpr std::string_view kSqliteMagic = "SQLite format 3";
inline constexpr int kApplicationId = 0x53415754;  // "SAWT"

enum class ColumnType { Integer, Real, Text };

// A later format may add columns at the end of a table (never between, never changing one):
// `since` says from which format version a column is there, and a file of an older version is
// checked against the columns it had.
struct Column {
  std::string_view name;
  ColumnType type;
  bool not_null = false;
  bool primary_key = false;  // the single-column key (an INTEGER one is the rowid)
  int since = 1;             // the format version that added it
};

struct Table {
  std::string_view name;
  std::span<const Column> columns;
  std::string_view table_constraint = {};  // e.g. "PRIMARY KEY(stack_id, depth)"
  bool without_rowid = false;
};

std::span<const Table> tables();
const Table* findTable(std::string_view name);
std::string_view typeName(ColumnType type);
// How many of a table's columns format `version` writes.
size_t columnsOfVersion(const Table& table, int version);
// CREATE TABLE for every table, then the convenience view events_named.
std::string schemaSql();
// CREATE TABLE for one table, under another name when given.
std::string createTableSql(const Table& table, std::string_view name = {});
std::string_view eventsNamedViewSql();

}  // namespace sawtooth::native
