#include "core/io/native_writer.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "core/analysis/summary_builder.h"
#include "core/io/native_summaries.h"
#include "core/io/native_summary_store.h"
#include "core/io/sqlite_db.h"
#include "core/model/meta_keys.h"

namespace sawtooth {
namespace {

constexpr int kRowsPerInsert = 32;  // one statement step stores this many events (measured: bench_writer)
constexpr int kEventColumns = 13;   // bound per event (seq aside)

const char* phaseKindName(PhaseKind kind) { return kind == PhaseKind::Annotation ? "annotation" : "phase"; }

// With the seq given, or (numbered) left to SQLite: the next rowid, one past the largest, which
// is the seq the rows must have when they are appended in order — and saves SQLite the check
// that a given rowid is free (a fifth of the insert, measured).
std::string eventInsertSql(int rows, bool numbered) {
  const char* row = numbered ? "(?,?,?,?,?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  std::string sql = numbered ? "INSERT INTO events(t_ns, device, source, action, addr, size, stream, category, phase, "
                               "stack, run, module, pass) VALUES"
                             : "INSERT INTO events VALUES";
  for (int r = 0; r < rows; ++r) sql += (r ? "," : "") + std::string(row);
  return sql;
}

// Binds event i at parameter p + 1 on; its seq first unless SQLite numbers the row.
void bindEventRow(sqlite3_stmt* st, int p, const EventStore& ev, size_t i, std::optional<uint64_t> seq) {
  if (seq) sqlite3_bind_int64(st, ++p, static_cast<int64_t>(*seq));
  sqlite3_bind_int64(st, p + 1, ev.tNs()[i]);
  sqlite3_bind_int64(st, p + 2, ev.device()[i]);
  sqlite3_bind_int64(st, p + 3, static_cast<int64_t>(ev.source()[i]));
  sqlite3_bind_int64(st, p + 4, static_cast<int64_t>(ev.action()[i]));
  sqlite3_bind_int64(st, p + 5, static_cast<int64_t>(ev.addr()[i]));
  sqlite3_bind_int64(st, p + 6, ev.sizes()[i]);
  sqlite3_bind_int64(st, p + 7, static_cast<int64_t>(ev.stream()[i]));
  sqlite3_bind_int64(st, p + 8, static_cast<int64_t>(ev.category()[i]));
  // NULL for "none" (no phase, stack or run): what readers and sqlite3 users expect.
  if (ev.phase()[i] == kNoPhase) sqlite3_bind_null(st, p + 9);
  else sqlite3_bind_int64(st, p + 9, ev.phase()[i]);
  if (ev.stack()[i] == kNoStack) sqlite3_bind_null(st, p + 10);
  else sqlite3_bind_int64(st, p + 10, ev.stack()[i]);
  if (ev.run()[i] == kNoRun) sqlite3_bind_null(st, p + 11);
  else sqlite3_bind_int64(st, p + 11, ev.run()[i]);
  if (ev.module(i) == kNoModule) sqlite3_bind_null(st, p + 12);
  else sqlite3_bind_int64(st, p + 12, ev.module(i));
  if (ev.pass(i) == Pass::None) sqlite3_bind_null(st, p + 13);
  else sqlite3_bind_int64(st, p + 13, static_cast<int64_t>(ev.pass(i)));
}

struct RawStatement {
  sqlite3_stmt* stmt = nullptr;
  RawStatement() = default;
  RawStatement(const RawStatement&) = delete;
  RawStatement& operator=(const RawStatement&) = delete;
  ~RawStatement() { sqlite3_finalize(stmt); }
};

}  // namespace

struct NativeWriter::Impl {
  Impl(OutputClaim c, sql::Database database) : claim(std::move(c)), db(std::move(database)) {}
  ~Impl() {
    if (wal_fd >= 0) ::close(wal_fd);
  }
  // Declared first, destroyed last: SQLite closes its descriptors before the lock goes.
  OutputClaim claim;
  sql::Database db;
  sql::Statement meta, erase_meta, device, run, config, measurement, phase, frame, stack, counter, kernel, kernel_name;
  sql::Statement module, module_call;
  sql::Statement update_category, update_module, allocator_net, event_time, delete_events, delete_kernels, event_row;
  RawStatement events_numbered_many, events_numbered_one, events_one;
  uint64_t rowid_end = 0;  // one past the largest seq in the events table (0: none yet)
  int wal_fd = -1;         // the WAL file, for keeping room reserved after it
  bool recording = false;
  bool in_batch = false;
  int last_errno = 0;
  // The summaries, as the events are written (null: built when the file is finished).
  NativeWriterOptions options;
  std::unique_ptr<native::SqlSummaryStore> summary_store;
  std::unique_ptr<summary::SummaryBuilder> summaries;
  std::map<std::string, std::string> allocator_meta;  // allocator.* keys, for the replay's settings
  // A source's own totals (Counter "allocated" / "reserved"), each point after its event.
  struct CounterPoint {
    uint64_t after_event;
    DeviceId device;
    bool allocated;
    int64_t value;
    bool operator<(const CounterPoint& o) const { return after_event < o.after_event; }
  };
  std::vector<CounterPoint> counter_points;  // by after_event
  bool summaries_failed = false;
  size_t next_counter = 0;
  int64_t counter_t = 0;

  // The system's error number of a failed write. SQLite keeps it (sqlite3_system_errno) only
  // until its own clean-up after a failed COMMIT; errno still has it then (EFBIG, measured).
  int systemErrno(int errno_after_call) const {
    const int kept = sqlite3_system_errno(db.handle());
    if (kept != 0) return kept;
    if (errno_after_call != 0) return errno_after_call;
    return sqlite3_errcode(db.handle()) == SQLITE_FULL ? ENOSPC : 0;
  }
  Status failed(const std::string& what) {
    const int saved = errno;
    last_errno = systemErrno(saved);
    return Error{fmt::format("{}: {}: {}", db.path(), what, sqlite3_errmsg(db.handle()))};
  }
  // Keeps the errno of a statement's failure for lastErrno().
  Status check(Status st) {
    const int saved = errno;
    if (!st) last_errno = systemErrno(saved);
    return st;
  }
};

NativeWriter::NativeWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NativeWriter::~NativeWriter() {
  if (impl_ && impl_->in_batch) (void)commitBatch();
}

Result<std::unique_ptr<NativeWriter>> NativeWriter::create(const std::string& path, OutputClaim::Existing existing,
                                                           NativeWriterOptions options) {
  auto claim = OutputClaim::claim(path, existing);
  if (!claim) return claim.error();
  return create(std::move(*claim), options);
}

Result<std::unique_ptr<NativeWriter>> NativeWriter::create(OutputClaim claim, NativeWriterOptions options) {
  const std::string path = claim.path();
  if (Status st = claim.empty(); !st) return st.error();
  auto db = sql::Database::open(path, sql::Database::Mode::Create);
  if (!db) return db.error();
  // SQLite says "disk I/O error" for a file size limit or a full disk: the message names the cause.
  const auto failed = [&db](const Status& st) -> Error {
    const int saved = errno;
    int number = sqlite3_system_errno(db->handle());
    const int code = sqlite3_errcode(db->handle()) & 0xFF;
    if (number == 0 && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN)) number = saved;
    if (number == 0 && code == SQLITE_FULL) number = ENOSPC;
    const std::string cause = writeFailureCause(number);
    return cause.empty() ? st.error() : Error{fmt::format("{} — {}", st.error().message, cause)};
  };
  // SQLite's default 4 KiB pages: 64 KiB ones were no faster to append to (bench_writer), and
  // made every file at least 1 MiB and every small commit a 64 KiB write.
  for (std::string_view pragma : {"PRAGMA page_size=4096", "PRAGMA journal_mode=WAL", "PRAGMA synchronous=OFF",
                                  "PRAGMA cache_size=-32768", "PRAGMA temp_store=MEMORY"})
    if (Status st = db->exec(pragma); !st) return failed(st);
  if (Status st = db->exec(fmt::format("PRAGMA application_id={}; PRAGMA user_version={};", native::kApplicationId,
                                       native::kFormatVersion));
      !st)
    return failed(st);
  if (Status st = db->exec(native::schemaSql()); !st) return failed(st);

  std::string names = "BEGIN;";
  for (int i = 0; i < kActionCount; ++i)
    names += fmt::format("INSERT INTO action_names VALUES({}, '{}');", i, name(static_cast<Action>(i)));
  for (int i = 0; i < kSourceCount; ++i)
    names += fmt::format("INSERT INTO source_names VALUES({}, '{}');", i, name(static_cast<Source>(i)));
  for (int i = 0; i < kCategoryCount; ++i)
    names += fmt::format("INSERT INTO category_names VALUES({}, '{}');", i, name(static_cast<Category>(i)));
  for (int i = 0; i < kPassCount; ++i)
    names += fmt::format("INSERT INTO pass_names VALUES({}, '{}');", i, name(static_cast<Pass>(i)));
  names += fmt::format("INSERT INTO meta VALUES('{}', '{}');", meta::kFormatVersion, native::kFormatVersion);
  // Until the recorder says otherwise, a recording is what a killed one leaves.
  if (options.recording)
    names += fmt::format("INSERT INTO meta VALUES('{}', 'false'); INSERT INTO meta VALUES('{}', 'killed');",
                         meta::kComplete, meta::kIncompleteReason);
  names += "COMMIT;";
  if (Status st = db->exec(names); !st) return failed(st);

  auto impl = std::make_unique<Impl>(std::move(claim), std::move(*db));
  impl->recording = options.recording;
  impl->options = options;
  if (options.summaries && options.summaries_as_written) {
    auto store = native::SqlSummaryStore::create(impl->db, impl->db);
    if (!store) return store.error();
    impl->summary_store = std::move(*store);
    summary::BuilderOptions builder;
    builder.checkpoints = options.allocator_checkpoints;
    impl->summaries = std::make_unique<summary::SummaryBuilder>(*impl->summary_store, builder);
  }
  struct Prep {
    sql::Statement* target;
    const char* sql;
  };
  const Prep preps[] = {
      {&impl->meta, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"},
      {&impl->erase_meta, "DELETE FROM meta WHERE key = ?"},
      {&impl->device, "INSERT OR REPLACE INTO devices VALUES(?, ?, ?, ?, ?)"},
      {&impl->run, "INSERT OR REPLACE INTO runs VALUES(?, ?, ?)"},
      {&impl->config, "INSERT INTO run_config VALUES(?, ?, ?)"},
      {&impl->measurement, "INSERT INTO measurements VALUES(?, ?, ?, ?)"},
      {&impl->phase, "INSERT OR REPLACE INTO phases VALUES(?, ?, ?, ?, ?, ?, ?)"},
      {&impl->frame, "INSERT OR REPLACE INTO frames VALUES(?, ?, ?, ?)"},
      {&impl->stack, "INSERT OR REPLACE INTO stacks VALUES(?, ?, ?)"},
      {&impl->counter, "INSERT INTO counters VALUES(?, ?, ?, ?)"},
      {&impl->kernel, "INSERT INTO kernels VALUES(?, ?, ?, ?, ?, ?)"},
      {&impl->kernel_name, "INSERT OR REPLACE INTO kernel_names VALUES(?, ?)"},
      {&impl->update_category, "UPDATE events SET category = ? WHERE seq = ?"},
      {&impl->update_module, "UPDATE events SET module = ? WHERE seq = ?"},
      {&impl->module, "INSERT OR REPLACE INTO modules VALUES(?, ?, ?, ?, ?)"},
      {&impl->module_call, "INSERT INTO module_calls VALUES(?, ?, ?, ?, ?)"},
      {&impl->allocator_net,
       "SELECT device, action, sum(size) FROM events WHERE seq >= ? AND seq < ? AND source = 0 GROUP BY device, action"},
      {&impl->event_time, "SELECT t_ns FROM events WHERE seq = ?"},
      {&impl->delete_events, "DELETE FROM events WHERE seq < ?"},
      {&impl->delete_kernels, "DELETE FROM kernels WHERE end_ns < ?"},
      {&impl->event_row, "SELECT device, source, action, size, category FROM events WHERE seq = ?"},
  };
  for (const auto& p : preps) {
    auto st = impl->db.prepare(p.sql);
    if (!st) return st.error();
    *p.target = std::move(*st);
  }
  sqlite3* handle = impl->db.handle();
  for (auto [statement, rows, numbered] : {std::tuple{&impl->events_numbered_many, kRowsPerInsert, true},
                                           std::tuple{&impl->events_numbered_one, 1, true},
                                           std::tuple{&impl->events_one, 1, false}}) {
    const std::string sql = eventInsertSql(rows, numbered);
    if (sqlite3_prepare_v3(handle, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &statement->stmt, nullptr) != SQLITE_OK)
      return Error{fmt::format("{}: {}", path, sqlite3_errmsg(handle))};
  }
  return std::unique_ptr<NativeWriter>(new NativeWriter(std::move(impl)));
}

const std::string& NativeWriter::path() const { return impl_->db.path(); }
int NativeWriter::lastErrno() const { return impl_->last_errno; }

Status NativeWriter::beginBatch() {
  if (impl_->in_batch) return Ok{};
  if (Status st = impl_->check(impl_->db.exec("BEGIN")); !st) return st;
  impl_->in_batch = true;
  return Ok{};
}

Status NativeWriter::commitBatch() {
  if (!impl_->in_batch) return Ok{};
  if (Status st = flushSummaries(); !st) {
    rollbackBatch();
    return st;
  }
  impl_->in_batch = false;
  Status st = impl_->check(impl_->db.exec("COMMIT"));
  if (!st && sqlite3_get_autocommit(impl_->db.handle()) == 0) (void)impl_->db.exec("ROLLBACK");
  if (st && impl_->recording) keepWalReserve();
  return st;
}

void NativeWriter::keepWalReserve() {
  // Disk blocks held past the end of the WAL (the file's size unchanged): when the disk fills,
  // the batch that fails has used them, and the few pages that say why the recording stopped
  // fit where its frames were. (A file size limit is no disk: finish() folds the WAL in then.)
  constexpr off_t kReserve = 1 << 20;
  Impl& im = *impl_;
  if (im.wal_fd < 0) im.wal_fd = ::open((im.db.path() + "-wal").c_str(), O_WRONLY | O_CLOEXEC);
  struct stat st {};
  if (im.wal_fd < 0 || ::fstat(im.wal_fd, &st) != 0) return;
  (void)::fallocate(im.wal_fd, FALLOC_FL_KEEP_SIZE, st.st_size, kReserve);
}

void NativeWriter::rollbackBatch() {
  if (sqlite3_get_autocommit(impl_->db.handle()) == 0) (void)impl_->db.exec("ROLLBACK");
  // The summaries saw what was just undone: they stop where the last commit left them (the file's
  // summary.events says where), and a reader builds the rest.
  if (impl_->summaries) impl_->summaries_failed = true;
  impl_->summaries.reset();
  impl_->in_batch = false;
}

Status NativeWriter::finish(const std::string& incomplete_reason, const std::string& detail) {
  if (Status st = finishSummaries(); !st) {
    // Not even the summaries fit (a full disk): the file says how far they cover (summary.events),
    // and a reader builds the rest into its cache.
    rollbackBatch();
    if (!impl_->recording) return impl_->check(st);
  }
  Status ended = impl_->recording ? recordEnding(incomplete_reason, detail) : commitBatch();
  if (!ended && impl_->recording) {
    // No room for even that: fold the WAL into the database and empty it (under a file size
    // limit the database still has room), then say it again.
    rollbackBatch();
    (void)impl_->db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    ended = recordEnding(incomplete_reason, detail);
  }
  if (!ended) return ended;
  if (impl_->wal_fd >= 0) ::close(std::exchange(impl_->wal_fd, -1));
  // A finished file leaves WAL mode so that it opens read-only anywhere (no -wal/-shm needed),
  // synced once. A reader that has the file open (a live view) keeps it in WAL mode: still valid.
  (void)impl_->db.exec("PRAGMA synchronous=NORMAL");
  if (Status mode = impl_->db.exec("PRAGMA journal_mode=DELETE"); !mode) {
    if (sqlite3_errcode(impl_->db.handle()) == SQLITE_BUSY) return Ok{};
    return impl_->check(mode);
  }
  return Ok{};
}

Status NativeWriter::recordEnding(const std::string& incomplete_reason, const std::string& detail) {
  if (Status st = beginBatch(); !st) return st;
  const std::string complete(meta::kComplete), reason(meta::kIncompleteReason),
      detail_key(meta::kIncompleteDetail);
  Status st = setMeta(complete, incomplete_reason.empty() ? "true" : "false");
  if (st) st = incomplete_reason.empty() ? eraseMeta(reason) : setMeta(reason, incomplete_reason);
  if (st) st = detail.empty() ? eraseMeta(detail_key) : setMeta(detail_key, detail);
  if (!st) {
    rollbackBatch();
    return st;
  }
  return commitBatch();
}

Status NativeWriter::setMeta(const std::string& key, const std::string& value) {
  if (key.starts_with("allocator.") && impl_->summaries) {
    impl_->allocator_meta[key] = value;
    Trace settings_of;
    settings_of.meta = impl_->allocator_meta;
    impl_->summaries->setAllocatorSettings(allocatorSettings(settings_of));
  }
  return impl_->check(impl_->meta.bind(1, key).bind(2, value).run());
}

Status NativeWriter::eraseMeta(const std::string& key) { return impl_->check(impl_->erase_meta.bind(1, key).run()); }

Status NativeWriter::writeDevice(const DeviceInfo& d) {
  if (impl_->summaries) impl_->summaries->setBaseline(d.device, d.baseline_allocated, d.baseline_reserved);
  return impl_->check(impl_->device.bind(1, int64_t{d.device})
                          .bind(2, d.name)
                          .bind(3, d.total_bytes)
                          .bind(4, d.baseline_allocated)
                          .bind(5, d.baseline_reserved)
                          .run());
}

Status NativeWriter::writeRun(uint16_t id, const Run& run) {
  if (Status st = impl_->run.bind(1, int64_t{id}).bind(2, run.name).bind(3, run.workload).run(); !st)
    return impl_->check(st);
  if (Status st = impl_->db.exec(fmt::format("DELETE FROM run_config WHERE run_id={0}; DELETE FROM measurements "
                                             "WHERE run_id={0};",
                                             id));
      !st)
    return impl_->check(st);
  for (const auto& [k, v] : run.config)
    if (Status st = impl_->config.bind(1, int64_t{id}).bind(2, k).bind(3, v).run(); !st) return impl_->check(st);
  for (const auto& m : run.measurements)
    if (Status st = impl_->measurement.bind(1, int64_t{id}).bind(2, m.name).bind(3, m.value).bind(4, m.unit).run(); !st)
      return impl_->check(st);
  return Ok{};
}

void NativeWriter::setStepStarts(std::vector<int64_t> starts) {
  if (impl_->summaries) impl_->summaries->setStepStarts(std::move(starts));
}

void NativeWriter::setAllocatorStart(DeviceId device, const AllocatorState& state, const AllocatorSettings& settings) {
  if (impl_->summaries) impl_->summaries->setAllocatorStart(device, state, settings);
}

uint64_t NativeWriter::summarisedEvents() const { return impl_->summaries ? impl_->summaries->eventsSeen() : 0; }

Status NativeWriter::writePhase(uint32_t id, const Phase& p, bool open) {
  if (impl_->summaries) impl_->summaries->addPhase(id, p, open);
  auto& st = impl_->phase;
  st.bind(1, int64_t{id}).bind(2, p.name).bind(3, std::string_view(phaseKindName(p.kind)));
  if (p.device == kAllDevices) st.bindNull(4);
  else st.bind(4, int64_t{p.device});
  if (p.run == kNoRun) st.bindNull(5);
  else st.bind(5, int64_t{p.run});
  return impl_->check(st.bind(6, p.begin_ns).bind(7, p.end_ns).run());
}

Status NativeWriter::writeStacks(const StackTable& stacks, size_t first_frame, size_t first_stack) {
  for (size_t i = first_frame; i < stacks.frameCount(); ++i) {
    const FrameView f = stacks.frame(static_cast<uint32_t>(i));
    if (Status st = impl_->frame.bind(1, static_cast<int64_t>(i)).bind(2, f.name).bind(3, f.file).bind(4, f.line).run(); !st)
      return impl_->check(st);
  }
  for (size_t s = first_stack; s < stacks.stackCount(); ++s) {
    auto frames = stacks.stack(static_cast<uint32_t>(s));
    for (size_t depth = 0; depth < frames.size(); ++depth)
      if (Status st = impl_->stack.bind(1, static_cast<int64_t>(s))
                          .bind(2, static_cast<int64_t>(depth))
                          .bind(3, int64_t{frames[depth]})
                          .run();
          !st)
        return impl_->check(st);
  }
  return Ok{};
}

Status NativeWriter::writeCounter(const Counter& c) {
  if (impl_->summaries && (c.name == "allocated" || c.name == "reserved")) {
    // Points stay in event order (core/analysis/series.cpp): one before the last is left out.
    uint64_t last = 0;
    for (size_t i = 0; i < c.value.size(); ++i) {
      if (i > 0 && c.after_event[i] < last) continue;
      last = c.after_event[i];
      impl_->counter_points.push_back({c.after_event[i], c.device, c.name == "allocated", c.value[i]});
    }
    std::stable_sort(impl_->counter_points.begin() + static_cast<std::ptrdiff_t>(impl_->next_counter),
                     impl_->counter_points.end());
  }
  for (size_t i = 0; i < c.value.size(); ++i)
    if (Status st = impl_->counter.bind(1, int64_t{c.device})
                        .bind(2, c.name)
                        .bind(3, static_cast<int64_t>(c.after_event[i]))
                        .bind(4, c.value[i])
                        .run();
        !st)
      return impl_->check(st);
  return Ok{};
}

Status NativeWriter::writeKernelName(uint32_t id, const std::string& kernel_name) {
  return impl_->check(impl_->kernel_name.bind(1, int64_t{id}).bind(2, kernel_name).run());
}

Status NativeWriter::appendKernels(std::span<const KernelInterval> kernels) {
  auto& st = impl_->kernel;
  for (const KernelInterval& k : kernels) {
    st.bind(1, int64_t{k.device}).bind(2, int64_t{k.stream}).bind(3, k.begin_ns).bind(4, k.end_ns).bind(5, int64_t{k.name});
    if (k.run == kNoRun) st.bindNull(6);
    else st.bind(6, int64_t{k.run});
    if (Status s = st.run(); !s) return impl_->check(s);
  }
  return Ok{};
}

Status NativeWriter::writeSegments(const std::vector<SnapshotSegment>& segments) {
  auto seg = impl_->db.prepare("INSERT INTO segments VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!seg) return seg.error();
  auto block = impl_->db.prepare("INSERT INTO segment_blocks VALUES(?, ?, ?, ?, ?, ?)");
  if (!block) return block.error();
  auto stackOrNull = [](sql::Statement& st, int index, uint32_t stack) -> sql::Statement& {
    return stack == kNoStack ? st.bindNull(index) : st.bind(index, int64_t{stack});
  };
  for (size_t i = 0; i < segments.size(); ++i) {
    const SnapshotSegment& s = segments[i];
    seg->bind(1, static_cast<int64_t>(i)).bind(2, int64_t{s.device}).bind(3, static_cast<int64_t>(s.address));
    seg->bind(4, s.total_size).bind(5, static_cast<int64_t>(s.stream)).bind(6, std::string_view(s.small_pool ? "small" : "large"));
    seg->bind(7, int64_t{s.expandable}).bind(8, s.pool_id.first).bind(9, s.pool_id.second);
    if (Status st = impl_->check(stackOrNull(*seg, 10, s.stack).run()); !st) return st;
    for (const SnapshotBlock& b : s.blocks) {
      block->bind(1, static_cast<int64_t>(i)).bind(2, static_cast<int64_t>(b.address)).bind(3, b.size);
      block->bind(4, b.requested_size).bind(5, name(b.state));
      if (Status st = impl_->check(stackOrNull(*block, 6, b.stack).run()); !st) return st;
    }
  }
  return setMeta(std::string(meta::kSegmentsKnown), "true");
}

Status NativeWriter::updateCategory(size_t seq, Category category) {
  std::optional<Event> before;
  if (impl_->summaries) {
    auto& row = impl_->event_row;
    row.bind(1, static_cast<int64_t>(seq));
    if (row.step()) {
      Event e;
      e.device = static_cast<DeviceId>(row.int64(0));
      e.source = static_cast<Source>(row.int64(1));
      e.action = static_cast<Action>(row.int64(2));
      e.size = row.int64(3);
      e.category = static_cast<Category>(row.int64(4));
      before = e;
    }
    const std::string error = row.error();
    row.reset();
    if (!error.empty()) return impl_->check(Error{error});
  }
  if (Status st = impl_->check(impl_->update_category.bind(1, static_cast<int64_t>(category))
                                   .bind(2, static_cast<int64_t>(seq))
                                   .run());
      !st)
    return st;
  if (before && before->source == Source::Allocator && !impl_->summaries->stale() &&
      seq < impl_->summaries->eventsSeen())
    return impl_->check(
        impl_->summaries->recategorise(seq, before->device, before->action, before->size, before->category, category));
  return Ok{};
}

Status NativeWriter::summariseRow(uint64_t seq, const EventStore& ev, size_t i) {
  Impl& im = *impl_;
  if (Status st = im.summaries->add(seq, ev.at(i)); !st) return st;
  while (im.next_counter < im.counter_points.size() && im.counter_points[im.next_counter].after_event <= seq) {
    const auto& c = im.counter_points[im.next_counter++];
    if (c.after_event != seq) continue;  // its event is not in the file
    if (Status st = im.summaries->addCounter(c.device, c.allocated, seq, ev.tNs()[i], c.value); !st) return st;
  }
  return Ok{};
}

Status NativeWriter::flushSummaries() {
  if (!impl_->summaries || impl_->summaries->stale()) return Ok{};
  if (Status st = impl_->summaries->flush(); !st) return impl_->check(st);
  return setMeta(std::string(meta::kSummaryEvents), std::to_string(impl_->summaries->eventsSeen()));
}

Status NativeWriter::finishSummaries() {
  Impl& im = *impl_;
  if (im.summaries_failed || !im.options.summaries) return Ok{};
  if (Status st = beginBatch(); !st) return st;
  if (im.summaries && !im.summaries->stale()) {
    if (Status st = im.summaries->finish(); !st) return st;
  } else {
    // Built from the events as they now are (a window whose start moved, rows put back).
    im.summaries.reset();
    native::RebuildOptions rebuild;
    rebuild.allocator_checkpoints = im.options.allocator_checkpoints;
    auto events = native::rebuildSummaries(im.db, im.db, rebuild, nullptr);
    if (!events) return events.error();
    if (Status st = setMeta(std::string(meta::kSummaryEvents), std::to_string(*events)); !st) return st;
    return Ok{};
  }
  return setMeta(std::string(meta::kSummaryEvents), std::to_string(im.summaries->eventsSeen()));
}

Status NativeWriter::updateModule(size_t seq, uint32_t module) {
  auto& st = impl_->update_module;
  if (module == kNoModule) st.bindNull(1);
  else st.bind(1, int64_t{module});
  return impl_->check(st.bind(2, static_cast<int64_t>(seq)).run());
}

Status NativeWriter::writeModule(uint32_t id, const Module& m) {
  auto& st = impl_->module;
  st.bind(1, int64_t{id}).bind(2, m.name).bind(3, m.class_name);
  if (m.parent == kNoModule) st.bindNull(4);
  else st.bind(4, int64_t{m.parent});
  return impl_->check(st.bind(5, m.parameter_bytes).run());
}

Status NativeWriter::appendModuleCalls(std::span<const ModuleCall> calls) {
  auto& st = impl_->module_call;
  for (const ModuleCall& c : calls) {
    st.bind(1, int64_t{c.module}).bind(2, static_cast<int64_t>(c.pass));
    if (c.run == kNoRun) st.bindNull(3);
    else st.bind(3, int64_t{c.run});
    if (Status s = st.bind(4, c.begin_ns).bind(5, c.end_ns).run(); !s) return impl_->check(s);
  }
  return Ok{};
}

Status NativeWriter::appendEvents(const EventStore& ev, size_t begin, size_t end, Progress* progress) {
  return appendEventsAt(ev, begin, end, begin, progress);
}

Status NativeWriter::appendEventsAt(const EventStore& ev, size_t begin, size_t end, uint64_t first_seq,
                                    Progress* progress) {
  auto step = [&](sqlite3_stmt* st) -> Status {
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return impl_->failed("writing events");
    return Ok{};
  };
  Impl& im = *impl_;
  size_t i = begin;
  size_t next_report = begin;
  int64_t last_rowid = 0;
  while (i < end) {
    const uint64_t seq = first_seq + (i - begin);
    // SQLite numbers rows appended right after the largest seq; others carry theirs (the first
    // row of a file: SQLite would start at 1; rows put back before a window's start).
    const bool appended = im.rowid_end > 0 && seq == im.rowid_end;
    const size_t rows = appended && end - i >= static_cast<size_t>(kRowsPerInsert) ? kRowsPerInsert : 1;
    if (rows > 1) {
      for (int r = 0; r < kRowsPerInsert; ++r) bindEventRow(im.events_numbered_many.stmt, r * kEventColumns, ev, i + r, std::nullopt);
      if (Status st = step(im.events_numbered_many.stmt); !st) return st;
    } else if (appended) {
      bindEventRow(im.events_numbered_one.stmt, 0, ev, i, std::nullopt);
      if (Status st = step(im.events_numbered_one.stmt); !st) return st;
    } else {
      bindEventRow(im.events_one.stmt, 0, ev, i, seq);
      if (Status st = step(im.events_one.stmt); !st) return st;
    }
    // (Read before the summaries' rows go in: those change it too.)
    last_rowid = sqlite3_last_insert_rowid(im.db.handle());
    if (im.summaries && !im.summaries->stale())
      for (size_t r = 0; r < rows; ++r)
        if (Status st = impl_->check(summariseRow(seq + r, ev, i + r)); !st) return st;
    i += rows;
    im.rowid_end = std::max(im.rowid_end, first_seq + (i - begin));
    if (progress && i >= next_report) {
      next_report = i + 0x10000;
      if (progress->cancelled()) return Error{"cancelled"};
      progress->report(i - begin, end - begin);
    }
  }
  // The numbering SQLite chose is the one asked for (the writer is the table's only writer).
  const uint64_t last = first_seq + (end - begin) - 1;
  if (end > begin && im.rowid_end == last + 1 && static_cast<uint64_t>(last_rowid) != last)
    return Error{fmt::format("{}: events were numbered {} instead of {}", im.db.path(), last_rowid, last)};
  return Ok{};
}

Result<std::vector<AllocatorNet>> NativeWriter::allocatorNet(uint64_t from_seq, uint64_t to_seq) {
  std::vector<AllocatorNet> out;
  auto& st = impl_->allocator_net;
  st.bind(1, static_cast<int64_t>(from_seq)).bind(2, static_cast<int64_t>(to_seq));
  while (st.step()) {
    const auto device = static_cast<int16_t>(st.int64(0));
    const int64_t action = st.int64(1), bytes = st.int64(2);
    if (action < 0 || action >= kActionCount) continue;
    if (out.empty() || out.back().device != device) out.push_back(AllocatorNet{device, 0, 0});
    out.back().allocated += allocatedSign(static_cast<Action>(action)) * bytes;
    out.back().reserved += reservedSign(static_cast<Action>(action)) * bytes;
  }
  const bool failed = st.failed();
  const std::string error = st.error();
  st.reset();
  if (failed) {
    impl_->last_errno = sqlite3_system_errno(impl_->db.handle());
    return Error{error};
  }
  return out;
}

Result<int64_t> NativeWriter::eventTime(uint64_t seq) {
  auto& st = impl_->event_time;
  st.bind(1, static_cast<int64_t>(seq));
  const bool found = st.step();
  const int64_t t = found ? st.int64(0) : 0;
  const std::string error = st.error();
  st.reset();
  if (!error.empty()) {
    impl_->last_errno = sqlite3_system_errno(impl_->db.handle());
    return Error{error};
  }
  if (!found) return Error{fmt::format("{}: no event {}", impl_->db.path(), seq)};
  return t;
}

Status NativeWriter::deleteEventsBefore(uint64_t seq) {
  if (impl_->summaries) {
    // The start moved: the summaries are built from the events when the file is finished, and
    // until then the file has none (a reader of a killed window builds them).
    impl_->summaries.reset();
    for (const char* table : {"summary_series", "summary_axes", "summary_axis_nodes", "summary_nodes", "summary_spans",
                              "summary_event_index", "summary_checkpoints", "summary_checkpoint_segments",
                              "summary_checkpoint_blocks"})
      if (Status st = impl_->check(impl_->db.exec(fmt::format("DELETE FROM {}", table))); !st) return st;
    if (Status st = eraseMeta(std::string(meta::kSummaryEvents)); !st) return st;
  }
  return impl_->check(impl_->delete_events.bind(1, static_cast<int64_t>(seq)).run());
}

Status NativeWriter::deleteKernelsEndingBefore(int64_t t_ns) {
  return impl_->check(impl_->delete_kernels.bind(1, t_ns).run());
}

Status NativeWriter::renumberEventsFrom(uint64_t first_seq) {
  if (first_seq == 0) return Ok{};
  // A new table filled in order (a rowid cannot be shifted in place without collisions), and
  // the view over it made again.
  const native::Table* events = native::findTable("events");
  std::string ddl = native::createTableSql(*events, "events_renumbered");
  Status st = impl_->check(impl_->db.exec(fmt::format(
      "DROP VIEW IF EXISTS events_named; {} INSERT INTO events_renumbered SELECT seq - {}, t_ns, device, source, action, "
      "addr, size, stream, category, phase, stack, run, module, pass FROM events ORDER BY seq; DROP TABLE events; "
      "ALTER TABLE "
      "events_renumbered RENAME TO events; {}",
      ddl, first_seq, native::eventsNamedViewSql())));
  impl_->rowid_end -= std::min(impl_->rowid_end, first_seq);
  return st;
}

std::string writeFailureCause(int error_number) {
  switch (error_number) {
    case ENOSPC: return "the disk is full: no space left on the device";
    case EDQUOT: return "the disk quota is exceeded";
    case EFBIG: {
      rlimit limit{};
      if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        return fmt::format("the file size limit was reached: RLIMIT_FSIZE (ulimit -f) allows {} bytes",
                           static_cast<uint64_t>(limit.rlim_cur));
      return "the file size limit was reached (RLIMIT_FSIZE, ulimit -f)";
    }
    case EACCES:
    case EPERM: return "permission denied";
    case EROFS: return "the file system is read-only";
    default: return {};
  }
}

std::string diskFullReason(int error_number) {
  switch (error_number) {
    case ENOSPC: return "disk full";
    case EDQUOT: return "disk quota exceeded";
    case EFBIG: return "file size limit reached";
    default: return {};
  }
}

Status markIncomplete(const std::string& path, const std::string& reason, const std::string& detail) {
  auto db = sql::Database::open(path, sql::Database::Mode::Create);
  if (!db) return db.error();
  if (!db->hasTable("meta")) return Error{fmt::format("{}: not a Sawtooth recording (no meta table)", path)};
  auto set = db->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  if (!set) return set.error();
  Status st = db->exec("BEGIN");
  if (st) st = set->bind(1, meta::kComplete).bind(2, std::string_view("false")).run();
  if (st) st = set->bind(1, meta::kIncompleteReason).bind(2, reason).run();
  if (st && !detail.empty()) st = set->bind(1, meta::kIncompleteDetail).bind(2, detail).run();
  if (st) st = db->exec("COMMIT");
  if (!st) return st;
  (void)db->exec("PRAGMA journal_mode=DELETE");
  return Ok{};
}

}  // namespace sawtooth
