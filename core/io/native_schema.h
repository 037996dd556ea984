#pragma once
// The .sawtooth file's tables, defined once: the writer creates them from this description and
// the readers check a file against it (a file is data: its schema is verified, never trusted).

#include <span>
#include <string>
#include <string_view>

namespace sawtooth::native {

inline constexpr int kFormatVersion = 1;
inline constexpr std::string_view kSqliteMagic = "SQLite format 3";
inline constexpr int kApplicationId = 0x53415754;  // "SAWT"

// Keys of the meta table that Sawtooth itself writes and reads.
inline constexpr std::string_view kMetaFormatVersion = "format_version";
inline constexpr std::string_view kMetaSourceFormat = "source_format";
// "true" once the recorder finished cleanly; "false" while recording and after a fault.
inline constexpr std::string_view kMetaComplete = "complete";
// Why a recording is incomplete: interrupted, killed, disk full, crashed.
inline constexpr std::string_view kMetaIncompleteReason = "incomplete_reason";
// What happened, for a person ("no space left on device (ENOSPC) writing events").
inline constexpr std::string_view kMetaIncompleteDetail = "incomplete_detail";
// Records the capture queue dropped because the writer could not keep up (exact count).
inline constexpr std::string_view kMetaDroppedRecords = "dropped_records";
// "true" when the segments tables hold the allocator's segments at the trace's end (Trace::segments_known).
inline constexpr std::string_view kMetaSegmentsKnown = "segments_known";

enum class ColumnType { Integer, Real, Text };

struct Column {
  std::string_view name;
  ColumnType type;
  bool not_null = false;
  bool primary_key = false;  // the single-column key (an INTEGER one is the rowid)
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
// CREATE TABLE for every table, then the convenience view events_named.
std::string schemaSql();
// CREATE TABLE for one table, under another name when given.
std::string createTableSql(const Table& table, std::string_view name = {});
std::string_view eventsNamedViewSql();

}  // namespace sawtooth::native
