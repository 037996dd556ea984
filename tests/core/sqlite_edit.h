#pragma once
// Editing a file a test wrote, as a user's hand or a crash would: SQL run on it directly.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

namespace sawtooth::test {

inline void execSql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

}  // namespace sawtooth::test
