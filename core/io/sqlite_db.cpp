#include "core/io/sqlite_db.h"

#include <fmt/format.h>
#include <sqlite3.h>

namespace sawtooth::sql {

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      path_(std::move(other.path_)),
      guard_(std::move(other.guard_)),
      error_(std::move(other.error_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    path_ = std::move(other.path_);
    guard_ = std::move(other.guard_);
    error_ = std::move(other.error_);
  }
  return *this;
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  if (rc == SQLITE_INTERRUPT && guard_ && guard_->stopped == 1) error_ = fmt::format("{}: {}", path_, guard_->time_message);
  else if (rc == SQLITE_INTERRUPT && guard_ && guard_->stopped == 2) error_ = "cancelled";
  else error_ = fmt::format("{}: {}", path_, sqlite3_errmsg(sqlite3_db_handle(stmt_)));
  return false;
}

Status Statement::run() {
  error_.clear();  // a statement that failed once (a full disk) may succeed again
  while (step()) {
  }
  reset();
  if (failed()) return Error{error_};
  return Ok{};
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
std::string_view Statement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (!p) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}
bool Statement::isNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
int Statement::type(int column) const { return sqlite3_column_type(stmt_, column); }

void Database::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

Result<Database> Database::open(const std::string& path, Mode mode) {
  sqlite3* db = nullptr;
  int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if (db) sqlite3_close_v2(db);
    return Error{fmt::format("{}: cannot open as a database ({})", path, why)};
  }
  sqlite3_busy_timeout(db, 2000);
  return Database(db, path);
}

namespace {

int progressHandler(void* context) {
  auto* guard = static_cast<Guard*>(context);
  if (guard->progress && guard->progress->cancelled()) {
    guard->stopped = 2;
    return 1;
  }
  if (std::chrono::steady_clock::now() > guard->deadline) {
    guard->stopped = 1;
    return 1;
  }
  return 0;
}

}  // namespace

Result<Database> Database::openUntrusted(const std::string& path, const std::string& uri, std::shared_ptr<Guard> guard,
                                         int max_length, bool writable) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(uri.c_str(), &db,
                                 (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_URI |
                                     SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if (db) sqlite3_close_v2(db);
    return Error{fmt::format("{}: cannot open as a database ({})", path, why)};
  }
  Database out(db, path, guard);
  // SQLite's guidance for databases from untrusted sources.
  for (auto [option, value] : {std::pair{SQLITE_DBCONFIG_DEFENSIVE, 1}, std::pair{SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
                               std::pair{SQLITE_DBCONFIG_ENABLE_TRIGGER, 0}, std::pair{SQLITE_DBCONFIG_ENABLE_VIEW, 0},
                               std::pair{SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0}}) {
    if (sqlite3_db_config(db, option, value, nullptr) != SQLITE_OK)
      return Error{fmt::format("{}: SQLite refused a safety setting ({})", path, sqlite3_errmsg(db))};
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, max_length);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_progress_handler(db, 4096, progressHandler, guard.get());
  if (Status st = out.exec("PRAGMA trusted_schema=OFF"); !st) return st.error();
  return out;
}

Status Database::exec(std::string_view sql) {
  char* err = nullptr;
  std::string text(sql);
  if (const int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &err); rc != SQLITE_OK) {
    std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    if (rc == SQLITE_INTERRUPT && guard_ && guard_->stopped == 1) why = guard_->time_message;
    return Error{fmt::format("{}: {}", path_, why)};
  }
  return Ok{};
}

Result<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK)
    return Error{fmt::format("{}: {}", path_, sqlite3_errmsg(db_.get()))};
  return Statement(stmt, path_, guard_);
}

bool Database::hasTable(std::string_view name) {
  auto st = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?");
  if (!st) return false;
  st->bind(1, name);
  return st->step();
}

}  // namespace sawtooth::sql
