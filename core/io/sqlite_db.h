#pragma once
// A thin RAII layer over the SQLite C API: a connection and prepared statements whose errors come
// back as values naming the file.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/util/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace sawtooth::sql {

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3_stmt* stmt, std::string path) : stmt_(stmt), path_(std::move(path)) {}
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

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string path_;
  std::string error_;
};

class Database {
 public:
  enum class Mode { ReadOnly, Create };
  static Result<Database> open(const std::string& path, Mode mode);

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
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
};

}  // namespace sawtooth::sql
