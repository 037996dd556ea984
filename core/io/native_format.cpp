#include "core/io/native_format.h"

#include <cstdio>

#include <fmt/format.h>

#include "core/io/sqlite_db.h"

namespace sawtooth {
namespace {

const char* phaseKindName(PhaseKind kind) { return kind == PhaseKind::Annotation ? "annotation" : "phase"; }

}  // namespace

struct NativeWriter::Impl {
  explicit Impl(sql::Database database) : db(std::move(database)) {}
  sql::Database db;
  sql::Statement meta, device, run, config, measurement, phase, frame, stack, event, counter, kernel, kernel_name;
  sql::Statement update_category;
  bool in_batch = false;
};

NativeWriter::NativeWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NativeWriter::~NativeWriter() {
  if (impl_ && impl_->in_batch) (void)commitBatch();
}

Result<std::unique_ptr<NativeWriter>> NativeWriter::create(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  auto db = sql::Database::open(path, sql::Database::Mode::Create);
  if (!db) return db.error();
  for (std::string_view pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"})
    if (Status st = db->exec(pragma); !st) return st.error();
  if (Status st = db->exec(fmt::format("PRAGMA application_id={}; PRAGMA user_version={};", native::kApplicationId,
                                       native::kFormatVersion));
      !st)
    return st.error();
  if (Status st = db->exec(native::schemaSql()); !st) return st.error();

  std::string names = "BEGIN;";
  for (int i = 0; i < kActionCount; ++i)
    names += fmt::format("INSERT INTO action_names VALUES({}, '{}');", i, name(static_cast<Action>(i)));
  for (int i = 0; i < kSourceCount; ++i)
    names += fmt::format("INSERT INTO source_names VALUES({}, '{}');", i, name(static_cast<Source>(i)));
  for (int i = 0; i < kCategoryCount; ++i)
    names += fmt::format("INSERT INTO category_names VALUES({}, '{}');", i, name(static_cast<Category>(i)));
  names += fmt::format("INSERT INTO meta VALUES('{}', '{}'); COMMIT;", native::kMetaFormatVersion, native::kFormatVersion);
  if (Status st = db->exec(names); !st) return st.error();

  auto impl = std::make_unique<Impl>(std::move(*db));
  struct Prep {
    sql::Statement* target;
    const char* sql;
  };
  const Prep preps[] = {
      {&impl->meta, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"},
      {&impl->device, "INSERT OR REPLACE INTO devices VALUES(?, ?, ?, ?, ?)"},
      {&impl->run, "INSERT OR REPLACE INTO runs VALUES(?, ?, ?)"},
      {&impl->config, "INSERT INTO run_config VALUES(?, ?, ?)"},
      {&impl->measurement, "INSERT INTO measurements VALUES(?, ?, ?, ?)"},
      {&impl->phase, "INSERT OR REPLACE INTO phases VALUES(?, ?, ?, ?, ?, ?, ?)"},
      {&impl->frame, "INSERT OR REPLACE INTO frames VALUES(?, ?, ?, ?)"},
      {&impl->stack, "INSERT OR REPLACE INTO stacks VALUES(?, ?, ?)"},
      {&impl->event, "INSERT INTO events VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&impl->counter, "INSERT INTO counters VALUES(?, ?, ?, ?)"},
      {&impl->kernel, "INSERT INTO kernels VALUES(?, ?, ?, ?, ?, ?)"},
      {&impl->kernel_name, "INSERT OR REPLACE INTO kernel_names VALUES(?, ?)"},
      {&impl->update_category, "UPDATE events SET category = ? WHERE seq = ?"},
  };
  for (const auto& p : preps) {
    auto st = impl->db.prepare(p.sql);
    if (!st) return st.error();
    *p.target = std::move(*st);
  }
  return std::unique_ptr<NativeWriter>(new NativeWriter(std::move(impl)));
}

Status NativeWriter::beginBatch() {
  if (impl_->in_batch) return Ok{};
  impl_->in_batch = true;
  return impl_->db.exec("BEGIN");
}

Status NativeWriter::commitBatch() {
  if (!impl_->in_batch) return Ok{};
  impl_->in_batch = false;
  return impl_->db.exec("COMMIT");
}

Status NativeWriter::finish() {
  if (Status st = commitBatch(); !st) return st;
  // A finished file leaves WAL mode so that it opens read-only anywhere (no -wal/-shm needed).
  return impl_->db.exec("PRAGMA journal_mode=DELETE");
}

Status NativeWriter::setMeta(const std::string& key, const std::string& value) {
  return impl_->meta.bind(1, key).bind(2, value).run();
}

Status NativeWriter::writeDevice(const DeviceInfo& d) {
  return impl_->device.bind(1, int64_t{d.device})
      .bind(2, d.name)
      .bind(3, d.total_bytes)
      .bind(4, d.baseline_allocated)
      .bind(5, d.baseline_reserved)
      .run();
}

Status NativeWriter::writeRun(uint16_t id, const Run& run) {
  if (Status st = impl_->run.bind(1, int64_t{id}).bind(2, run.name).bind(3, run.workload).run(); !st) return st;
  if (Status st = impl_->db.exec(fmt::format("DELETE FROM run_config WHERE run_id={0}; DELETE FROM measurements "
                                             "WHERE run_id={0};",
                                             id));
      !st)
    return st;
  for (const auto& [k, v] : run.config)
    if (Status st = impl_->config.bind(1, int64_t{id}).bind(2, k).bind(3, v).run(); !st) return st;
  for (const auto& m : run.measurements)
    if (Status st = impl_->measurement.bind(1, int64_t{id}).bind(2, m.name).bind(3, m.value).bind(4, m.unit).run(); !st)
      return st;
  return Ok{};
}

Status NativeWriter::writePhase(uint32_t id, const Phase& p) {
  auto& st = impl_->phase;
  st.bind(1, int64_t{id}).bind(2, p.name).bind(3, std::string_view(phaseKindName(p.kind)));
  if (p.device == kAllDevices) st.bindNull(4);
  else st.bind(4, int64_t{p.device});
  if (p.run == kNoRun) st.bindNull(5);
  else st.bind(5, int64_t{p.run});
  return st.bind(6, p.begin_ns).bind(7, p.end_ns).run();
}

Status NativeWriter::writeStacks(const StackTable& stacks, size_t first_frame, size_t first_stack) {
  for (size_t i = first_frame; i < stacks.frameCount(); ++i) {
    const FrameView f = stacks.frame(static_cast<uint32_t>(i));
    if (Status st = impl_->frame.bind(1, static_cast<int64_t>(i)).bind(2, f.name).bind(3, f.file).bind(4, f.line).run(); !st)
      return st;
  }
  for (size_t s = first_stack; s < stacks.stackCount(); ++s) {
    auto frames = stacks.stack(static_cast<uint32_t>(s));
    for (size_t depth = 0; depth < frames.size(); ++depth)
      if (Status st = impl_->stack.bind(1, static_cast<int64_t>(s))
                          .bind(2, static_cast<int64_t>(depth))
                          .bind(3, int64_t{frames[depth]})
                          .run();
          !st)
        return st;
  }
  return Ok{};
}

Status NativeWriter::writeCounter(const Counter& c) {
  for (size_t i = 0; i < c.value.size(); ++i)
    if (Status st = impl_->counter.bind(1, int64_t{c.device})
                        .bind(2, c.name)
                        .bind(3, static_cast<int64_t>(c.after_event[i]))
                        .bind(4, c.value[i])
                        .run();
        !st)
      return st;
  return Ok{};
}

Status NativeWriter::writeKernelName(uint32_t id, const std::string& kernel_name) {
  return impl_->kernel_name.bind(1, int64_t{id}).bind(2, kernel_name).run();
}

Status NativeWriter::appendKernels(std::span<const KernelInterval> kernels) {
  auto& st = impl_->kernel;
  for (const KernelInterval& k : kernels) {
    st.bind(1, int64_t{k.device}).bind(2, int64_t{k.stream}).bind(3, k.begin_ns).bind(4, k.end_ns).bind(5, int64_t{k.name});
    if (k.run == kNoRun) st.bindNull(6);
    else st.bind(6, int64_t{k.run});
    if (Status s = st.run(); !s) return s;
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
    if (Status st = stackOrNull(*seg, 10, s.stack).run(); !st) return st;
    for (const SnapshotBlock& b : s.blocks) {
      block->bind(1, static_cast<int64_t>(i)).bind(2, static_cast<int64_t>(b.address)).bind(3, b.size);
      block->bind(4, b.requested_size).bind(5, name(b.state));
      if (Status st = stackOrNull(*block, 6, b.stack).run(); !st) return st;
    }
  }
  return setMeta(std::string(native::kMetaSegmentsKnown), "true");
}

Status NativeWriter::updateCategory(size_t seq, Category category) {
  return impl_->update_category.bind(1, static_cast<int64_t>(category)).bind(2, static_cast<int64_t>(seq)).run();
}

Status NativeWriter::appendEvents(const EventStore& ev, size_t begin, size_t end, Progress* progress) {
  return appendEventsAt(ev, begin, end, begin, progress);
}

Status NativeWriter::appendEventsAt(const EventStore& ev, size_t begin, size_t end, uint64_t first_seq,
                                    Progress* progress) {
  auto& st = impl_->event;
  for (size_t i = begin; i < end; ++i) {
    st.bind(1, static_cast<int64_t>(first_seq + (i - begin)))
        .bind(2, ev.tNs()[i])
        .bind(3, int64_t{ev.device()[i]})
        .bind(4, static_cast<int64_t>(ev.source()[i]))
        .bind(5, static_cast<int64_t>(ev.action()[i]))
        .bind(6, static_cast<int64_t>(ev.addr()[i]))
        .bind(7, ev.sizes()[i])
        .bind(8, static_cast<int64_t>(ev.stream()[i]))
        .bind(9, static_cast<int64_t>(ev.category()[i]));
    if (ev.phase()[i] == kNoPhase) st.bindNull(10);
    else st.bind(10, int64_t{ev.phase()[i]});
    if (ev.stack()[i] == kNoStack) st.bindNull(11);
    else st.bind(11, int64_t{ev.stack()[i]});
    if (ev.run()[i] == kNoRun) st.bindNull(12);
    else st.bind(12, int64_t{ev.run()[i]});
    if (Status s = st.run(); !s) return s;
    if (progress && (i & 0xffff) == 0) {
      if (progress->cancelled()) return Error{"cancelled"};
      progress->report(i - begin, end - begin);
    }
  }
  return Ok{};
}

Status writeNative(const Trace& trace, const std::string& path, Progress* progress) {
  auto writer = NativeWriter::create(path);
  if (!writer) return writer.error();
  NativeWriter& w = **writer;
  if (Status st = w.beginBatch(); !st) return st;
  if (Status st = w.setMeta(std::string(native::kMetaSourceFormat), trace.format); !st) return st;
  for (const auto& [k, v] : trace.meta)
    if (Status st = w.setMeta(k, v); !st) return st;
  for (const auto& d : trace.devices)
    if (Status st = w.writeDevice(d); !st) return st;
  for (size_t i = 0; i < trace.runs.size(); ++i)
    if (Status st = w.writeRun(static_cast<uint16_t>(i), trace.runs[i]); !st) return st;
  for (size_t i = 0; i < trace.phases.size(); ++i)
    if (Status st = w.writePhase(static_cast<uint32_t>(i), trace.phases[i]); !st) return st;
  if (Status st = w.writeStacks(trace.stacks, 0, 0); !st) return st;
  for (const auto& c : trace.counters)
    if (Status st = w.writeCounter(c); !st) return st;
  for (size_t i = 0; i < trace.kernel_names.size(); ++i)
    if (Status st = w.writeKernelName(static_cast<uint32_t>(i), trace.kernel_names[i]); !st) return st;
  if (Status st = w.appendKernels(trace.kernels); !st) return st;
  if (trace.segments_known)
    if (Status st = w.writeSegments(trace.segments); !st) return st;
  if (Status st = w.appendEvents(trace.events, 0, trace.events.size(), progress); !st) return st;
  if (Status st = w.commitBatch(); !st) return st;
  return w.finish();
}

}  // namespace sawtooth
