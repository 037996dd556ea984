#pragma once
// A thin RAII layer over the SQLite C API: a connection and prepared statements whose errors come
// back as values naming the file.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/util/cancel.h"
#include "core/util/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace sawtooth::sql {

// What bounds every query on an untrusted file: a deadline and a cancel flag, checked by
// SQLite's progress handler every few thousand virtual-machine steps.
struct Guard {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const Progress* progress = nullptr;  // its cancel flag
  std::string time_message;     // the error when the deadline passed
  std::atomic<int> stopped{0};  // why the handler stopped a query: 1 deadline, 2 cancelled
};

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3_stmt* stmt, std::string path, std::shared_ptr<Guard> guard = nullptr)
      : stmt_(stmt), path_(std::move(path)), guard_(std::move(guard)) {}
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  ~Statement();

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bindNull(int index);
  // Returns true while a row is available; false when done. Errors are kept in error().
  bool step();
  Status run();  // step to completion, then reset
  void reset();

  int64_t int64(int column) const;
  double real(int column) const;
  std::string_view text(int column) const;
  bool isNull(int column) const;
  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
  int type(int column) const;

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string path_;
  std::shared_ptr<Guard> guard_;
  std::string error_;
};

class Database {
 public:
  enum class Mode { ReadOnly, Create };
  static Result<Database> open(const std::string& path, Mode mode);
  // A file that is data, not trusted: opened read-only through `uri` (a file: URI; `path` names
  // it in messages) with SQLite's defenses on (defensive mode, trusted_schema off, no triggers,
  // views or extensions), strings and blobs of at most `max_length` bytes, and every query
  // bounded by `guard`. Errors pass SQLite's own message through with the file name.
  static Result<Database> openUntrusted(const std::string& path, const std::string& uri, std::shared_ptr<Guard> guard,
                                        int max_length, bool writable = false);

  Database(Database&&) noexcept = default;
  Database& operator=(Database&&) noexcept = default;
  ~Database() = default;

  Status exec(std::string_view sql);
  Result<Statement> prepare(std::string_view sql);
  bool hasTable(std::string_view name);
  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_.get(); }

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  Database(sqlite3* db, std::string path, std::shared_ptr<Guard> guard = nullptr)
      : db_(db), path_(std::move(path)), guard_(std::move(guard)) {}
  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
  std::shared_ptr<Guard> guard_;
};

}  // namespace sawtooth::sql
