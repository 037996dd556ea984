// The module tree and each event's module and pass in a .sawtooth file (format 2): they round
// trip; files of format 1 open as before; a tree that names a missing parent, an event whose
// module is past the tree, and tables whose columns are not their version's are refused with the
// file and the place.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <sqlite3.h>

#include "core/io/native_event_reader.h"
#include "core/io/native_format.h"
#include "core/io/trace_loader.h"
#include "tests/core/module_trace.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

void execSql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

std::string written(const std::string& name) {
  const std::string path = test::tempPath("modules-" + name + ".sawtooth");
  EXPECT_TRUE(writeNative(test::moduleTrace(), path).ok());
  return path;
}

TEST(NativeModules, TreeCallsAndEventModulesRoundTrip) {
  const Trace original = test::moduleTrace();
  for (unsigned threads : {1u, 4u}) {
    auto back = readNative(written("round-trip"), nullptr, EventReadOptions{.threads = threads, .min_rows_per_thread = 1});
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->modules.size(), original.modules.size());
    for (size_t m = 0; m < original.modules.size(); ++m) {
      EXPECT_EQ(back->modules.modules[m].name, original.modules.modules[m].name);
      EXPECT_EQ(back->modules.modules[m].class_name, original.modules.modules[m].class_name);
      EXPECT_EQ(back->modules.modules[m].parent, original.modules.modules[m].parent);
      EXPECT_EQ(back->modules.modules[m].parameter_bytes, original.modules.modules[m].parameter_bytes);
    }
    ASSERT_EQ(back->modules.calls.size(), original.modules.calls.size());
    for (const ModuleCall& c : back->modules.calls) EXPECT_LE(back->modules.calls.front().begin_ns, c.begin_ns);
    ASSERT_EQ(back->events.size(), original.events.size());
    ASSERT_TRUE(back->events.hasModules());
    for (size_t i = 0; i < original.events.size(); ++i) {
      EXPECT_EQ(back->events.module(i), original.events.module(i)) << i;
      EXPECT_EQ(back->events.pass(i), original.events.pass(i)) << i;
    }
  }
}

TEST(NativeModules, SqliteNamesEachEventsModuleAndPass) {
  const std::string path = written("named");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT module, pass FROM events_named WHERE seq = 12", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "0");
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)), "backward");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// A long recording's module calls are sorted by their start when read: past SQLite's sort memory
// (about 2 MB) the sort spills to a temporary file of SQLite's own, which the read-only layer must
// let it write (it refused: "attempt to write a readonly database", and a 6 s CPU recording from
// the app did not open).
TEST(NativeModules, ALongRecordingsCallsSortOnDisk) {
  const std::string path = written("many-calls");
  constexpr int kExtra = 300000;
  execSql(path, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) "
                "INSERT INTO module_calls(module, pass, run, begin_ns, end_ns) "
                "SELECT 0, 0, NULL, (i * 7919) % 1000003, (i * 7919) % 1000003 + 10 FROM n");
  auto back = loadTrace(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->modules.calls.size(), test::moduleTrace().modules.calls.size() + kExtra);
  EXPECT_TRUE(std::is_sorted(back->modules.calls.begin(), back->modules.calls.end(),
                             [](const ModuleCall& a, const ModuleCall& b) { return a.begin_ns < b.begin_ns; }));
}

TEST(NativeModules, AFileOfFormatOneOpensWithoutModules) {
  // The committed samples were written in format 1: events without module and pass columns.
  auto t = loadTrace(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->modules.empty());
  EXPECT_FALSE(t->events.hasModules());
  EXPECT_GT(t->events.size(), 10000u);
}

TEST(NativeModules, ATreeNamingAMissingParentIsRefused) {
  const std::string path = written("missing-parent");
  execSql(path, "UPDATE modules SET parent = 17 WHERE id = 2");
  auto t = loadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            path + ": modules table: module 2 ('1') names parent 17, which is not in the tree (4 modules)");
}

TEST(NativeModules, ATreeWhoseParentComesLaterIsRefused) {
  const std::string path = written("later-parent");
  execSql(path, "UPDATE modules SET parent = 3 WHERE id = 1");
  auto t = loadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, path + ": modules table: module 1 ('0') names parent 3, which does not come before it "
                                      "(a parent is listed before its children)");
}

TEST(NativeModules, AnEventPastTheTreeIsRefused) {
  const std::string path = written("event-past-tree");
  execSql(path, "UPDATE events SET module = 9 WHERE seq = 5");
  for (unsigned threads : {1u, 4u}) {
    auto t = readNative(path, nullptr, EventReadOptions{.threads = threads, .min_rows_per_thread = 1});
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().message, path + ": event 5: module 9 is past the module tree (4 modules)");
  }
}

TEST(NativeModules, ACallPastTheTreeOrABadPassIsRefused) {
  std::string path = written("call-past-tree");
  execSql(path, "UPDATE module_calls SET module = 4 WHERE rowid = 1");
  auto t = loadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, path + ": module_calls row 0: module 4 is past the module tree (4 modules)");
  path = written("bad-pass");
  execSql(path, "UPDATE events SET pass = 7 WHERE seq = 3");
  t = loadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, path + ": event 3: pass 7 is not a pass (1 to 4, or NULL)");
}

TEST(NativeModules, ANegativeParameterSizeIsRefused) {
  const std::string path = written("negative-parameters");
  execSql(path, "UPDATE modules SET parameter_bytes = -4 WHERE id = 1");
  auto t = loadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, path + ": modules row 1 ('0'): parameter_bytes -4 is negative");
}

// A table holds exactly the columns of the file's own format version.
TEST(NativeModules, ColumnsMustBeThoseOfTheFilesVersion) {
  const std::string old_file = test::tempPath("modules-old-claims-new.sawtooth");
  std::filesystem::copy_file(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth", old_file,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::permissions(old_file, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  execSql(old_file, "UPDATE meta SET value = '2' WHERE key = 'format_version'");
  auto t = loadTrace(old_file);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, old_file + ": table 'events' has 12 columns, where format 2 has 14 (refused)");

  const std::string new_file = written("new-claims-old");
  execSql(new_file, "UPDATE meta SET value = '1' WHERE key = 'format_version'");
  t = loadTrace(new_file);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, new_file + ": table 'events' has 14 columns, where format 1 has 12 (refused)");

  // One column of a version but not the other: no version wrote that.
  const std::string half = written("half-version");
  execSql(half, "DROP VIEW events_named; ALTER TABLE events DROP COLUMN pass");
  t = loadTrace(half);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, half + ": table 'events' has 13 columns where Sawtooth writes 14 (refused)");
}

}  // namespace
}  // namespace sawtooth
