#include "core/io/native_schema_check.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "core/io/native_schema.h"

namespace sawtooth::native {
namespace {

constexpr size_t kMaxSchemaObjects = 10000;

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool startsWithCreateTable(std::string_view sql) {
  // "CREATE TABLE name(...)" as SQLite stores it (it keeps the text as written, so allow any
  // whitespace and case between the words); "CREATE VIRTUAL TABLE" is not a plain table.
  std::string words;
  for (char c : sql.substr(0, 64)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!words.empty() && words.back() != ' ') words += ' ';
    } else {
      words += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  return words.rfind("CREATE TABLE ", 0) == 0;
}

struct SchemaObject {
  std::string type;
  std::string sql;
};

// How many of the table's columns the file's table holds: those of one format version.
Result<size_t> columnCount(sql::Database& db, const Table& table) {
  auto st = db.prepare(fmt::format("PRAGMA table_xinfo(\"{}\")", table.name));
  if (!st) return st.error();
  size_t index = 0;
  while (st->step()) {
    const std::string name(st->text(1)), type = upper(st->text(2));
    const int64_t pk = st->int64(5), hidden = st->int64(6);
    if (index >= table.columns.size())
      return Error{fmt::format("{}: table '{}' has a column '{}' that Sawtooth does not write (refused)", db.path(),
                               table.name, name)};
    const Column& want = table.columns[index];
    const std::string want_type(typeName(want.type));
    if (upper(name) != upper(want.name) || type != want_type || hidden != 0 || (want.primary_key && pk != 1))
      return Error{fmt::format("{}: table '{}' is not the one Sawtooth writes (column {} is '{} {}'{}{}, expected "
                               "'{} {}'{}; refused)",
                               db.path(), table.name, index + 1, name, type, hidden ? " (generated)" : "",
                               pk && !want.primary_key ? " PRIMARY KEY" : "", want.name, want_type,
                               want.primary_key ? " PRIMARY KEY" : "")};
    ++index;
  }
  if (st->failed()) return Error{st->error()};
  // An older format's table ends where that format's columns end (later ones are appended).
  const bool whole_version = index == table.columns.size() ||
                             (index > 0 && table.columns[index].since > table.columns[index - 1].since);
  if (!whole_version)
    return Error{fmt::format("{}: table '{}' has {} columns where Sawtooth writes {} (refused)", db.path(), table.name,
                             index, table.columns.size())};
  return index;
}

}  // namespace

Result<std::set<std::string>> checkSchema(sql::Database& db, SchemaOf of) {
  // Reading the schema table runs nothing the file defines; SQLite's own errors (a truncated or
  // corrupt file: "database disk image is malformed") come through here first.
  std::map<std::string, SchemaObject> objects;
  {
    auto st = db.prepare("SELECT type, name, sql FROM sqlite_schema");
    if (!st) return st.error();
    while (st->step()) {
      if (objects.size() >= kMaxSchemaObjects)
        return Error{fmt::format("{}: more than {} objects in its schema: not a Sawtooth trace", db.path(), kMaxSchemaObjects)};
      objects[std::string(st->text(1))] = SchemaObject{std::string(st->text(0)), std::string(st->text(2).substr(0, 4096))};
    }
    if (st->failed()) return Error{st->error()};
  }
  for (const char* required : {"meta", of == SchemaOf::Trace ? "events" : "summary_series"})
    if (!objects.count(required))
      return Error{fmt::format("{}: an SQLite database, but not a Sawtooth trace (no '{}' table)", db.path(), required)};
  std::set<std::string> present;
  for (const Table& table : tables()) {
    auto it = objects.find(std::string(table.name));
    if (it == objects.end()) continue;
    const SchemaObject& o = it->second;
    if (o.type != "table")
      return Error{fmt::format("{}: '{}' is a {}, not a table: Sawtooth reads only the tables it writes (refused)",
                               db.path(), table.name, o.type)};
    if (!startsWithCreateTable(o.sql))
      return Error{fmt::format("{}: '{}' is not a plain table (a virtual table?): refused", db.path(), table.name)};
    if (auto columns = columnCount(db, table); !columns) return columns.error();
    present.insert(std::string(table.name));
  }
  return present;
}

Status checkColumnsOfVersion(sql::Database& db, const std::set<std::string>& present, int version) {
  for (const Table& table : tables()) {
    if (!present.count(std::string(table.name))) continue;
    auto columns = columnCount(db, table);
    if (!columns) return columns.error();
    const size_t want = columnsOfVersion(table, version);
    if (*columns != want)
      return Error{fmt::format("{}: table '{}' has {} columns, where format {} has {} (refused)", db.path(), table.name,
                               *columns, version, want)};
  }
  return Ok{};
}

}  // namespace sawtooth::native
