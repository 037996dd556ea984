#include <map>

#include <fmt/format.h>

#include "core/io/native_event_reader.h"
#include "core/io/native_format.h"
#include "core/io/sqlite_db.h"

namespace sawtooth {
namespace {

class NativeReader {
 public:
  NativeReader(sql::Database db, Progress* progress, const EventReadOptions& options)
      : db_(std::move(db)), progress_(progress), options_(options) {}

  Result<Trace> read() {
    const std::string& path = db_.path();
    if (!db_.hasTable("meta") || !db_.hasTable("events"))
      return Error{fmt::format("{}: an SQLite database, but not a Sawtooth trace (no 'meta' or 'events' table)", path)};
    if (Status st = readMeta(); !st) return st.error();
    trace_.format = "sawtooth";
    for (auto step : {&NativeReader::readDevices, &NativeReader::readRuns, &NativeReader::readPhases,
                      &NativeReader::readStacks, &NativeReader::readCounters, &NativeReader::readKernels, &NativeReader::readSegments,
                      &NativeReader::readEvents})
      if (Status st = (this->*step)(); !st) return st.error();
    return std::move(trace_);
  }

 private:
  Status readMeta() {
    auto st = db_.prepare("SELECT key, value FROM meta");
    if (!st) return st.error();
    while (st->step()) trace_.meta[std::string(st->text(0))] = std::string(st->text(1));
    if (st->failed()) return Error{st->error()};
    auto it = trace_.meta.find(std::string(native::kMetaFormatVersion));
    if (it == trace_.meta.end()) return Error{fmt::format("{}: no format_version in its meta table", db_.path())};
    int version = 0;
    try {
      version = std::stoi(it->second);
    } catch (...) {
      return Error{fmt::format("{}: unreadable format_version '{}'", db_.path(), it->second)};
    }
    if (version > native::kFormatVersion)
      return Error{fmt::format("{}: written in .sawtooth format {} by a newer Sawtooth; this build reads up to format "
                               "{}. Update Sawtooth to open it.",
                               db_.path(), version, native::kFormatVersion)};
    if (version < 1) return Error{fmt::format("{}: invalid format_version {}", db_.path(), version)};
    trace_.meta.erase(std::string(native::kMetaFormatVersion));
    return Ok{};
  }

  Status readDevices() {
    auto st = db_.prepare("SELECT device, name, total_bytes, baseline_allocated, baseline_reserved FROM devices ORDER BY device");
    if (!st) return st.error();
    while (st->step()) {
      auto& d = trace_.deviceInfo(static_cast<int16_t>(st->int64(0)));
      d.name = std::string(st->text(1));
      d.total_bytes = st->int64(2);
      d.baseline_allocated = st->int64(3);
      d.baseline_reserved = st->int64(4);
    }
    return st->failed() ? Status(Error{st->error()}) : Status(Ok{});
  }

  Status readRuns() {
    auto st = db_.prepare("SELECT id, name, workload FROM runs ORDER BY id");
    if (!st) return st.error();
    while (st->step()) {
      const auto id = static_cast<size_t>(st->int64(0));
      if (id >= kNoRun) return Error{fmt::format("{}: run id {} out of range", db_.path(), id)};
      if (trace_.runs.size() <= id) trace_.runs.resize(id + 1);
      trace_.runs[id].name = std::string(st->text(1));
      trace_.runs[id].workload = std::string(st->text(2));
    }
    if (st->failed()) return Error{st->error()};
    auto cfg = db_.prepare("SELECT run_id, key, value FROM run_config ORDER BY rowid");
    if (!cfg) return cfg.error();
    while (cfg->step()) {
      const auto id = static_cast<size_t>(cfg->int64(0));
      if (id < trace_.runs.size()) trace_.runs[id].config.emplace_back(cfg->text(1), cfg->text(2));
    }
    auto m = db_.prepare("SELECT run_id, name, value, unit FROM measurements ORDER BY rowid");
    if (!m) return m.error();
    while (m->step()) {
      const auto id = static_cast<size_t>(m->int64(0));
      if (id < trace_.runs.size())
        trace_.runs[id].measurements.push_back(Measurement{std::string(m->text(1)), m->real(2), std::string(m->text(3))});
    }
    return m->failed() ? Status(Error{m->error()}) : Status(Ok{});
  }

  Status readPhases() {
    auto st = db_.prepare("SELECT id, name, kind, device, run_id, begin_ns, end_ns FROM phases ORDER BY id");
    if (!st) return st.error();
    while (st->step()) {
      const auto id = static_cast<size_t>(st->int64(0));
      if (id != trace_.phases.size()) return Error{fmt::format("{}: phase ids are not dense (id {})", db_.path(), id)};
      Phase p;
      p.name = std::string(st->text(1));
      p.kind = st->text(2) == "annotation" ? PhaseKind::Annotation : PhaseKind::Phase;
      p.device = st->isNull(3) ? kAllDevices : static_cast<int16_t>(st->int64(3));
      p.run = st->isNull(4) ? kNoRun : static_cast<uint16_t>(st->int64(4));
      p.begin_ns = st->int64(5);
      p.end_ns = st->int64(6);
      trace_.phases.push_back(std::move(p));
    }
    return st->failed() ? Status(Error{st->error()}) : Status(Ok{});
  }

  Status readStacks() {
    auto f = db_.prepare("SELECT id, name, file, line FROM frames ORDER BY id");
    if (!f) return f.error();
    std::vector<uint32_t> frame_map;
    while (f->step()) {
      const auto id = static_cast<size_t>(f->int64(0));
      if (id != frame_map.size()) return Error{fmt::format("{}: frame ids are not dense (id {})", db_.path(), id)};
      frame_map.push_back(trace_.stacks.internFrame(f->text(1), f->text(2), f->int64(3)));
    }
    auto s = db_.prepare("SELECT stack_id, frame_id FROM stacks ORDER BY stack_id, depth");
    if (!s) return s.error();
    int64_t current = -1;
    std::vector<uint32_t> frames;
    auto flush = [&]() -> Status {
      if (current < 0) return Ok{};
      if (static_cast<size_t>(current) != trace_.stacks.stackCount() ||
          trace_.stacks.internStack(frames) != static_cast<uint32_t>(current))
        return Error{fmt::format("{}: stack ids are not dense or repeat (id {})", db_.path(), current)};
      frames.clear();
      return Ok{};
    };
    while (s->step()) {
      if (s->int64(0) != current) {
        if (Status st = flush(); !st) return st;
        current = s->int64(0);
      }
      const auto fid = static_cast<size_t>(s->int64(1));
      if (fid >= frame_map.size()) return Error{fmt::format("{}: stack {} names missing frame {}", db_.path(), current, fid)};
      frames.push_back(frame_map[fid]);
    }
    return flush();
  }

  Status readCounters() {
    auto st = db_.prepare("SELECT device, name, after_event, value FROM counters ORDER BY device, name, rowid");
    if (!st) return st.error();
    while (st->step()) {
      const auto device = static_cast<int16_t>(st->int64(0));
      std::string_view name = st->text(1);
      if (trace_.counters.empty() || trace_.counters.back().device != device || trace_.counters.back().name != name)
        trace_.counters.push_back(Counter{device, std::string(name), {}, {}});
      trace_.counters.back().after_event.push_back(static_cast<uint64_t>(st->int64(2)));
      trace_.counters.back().value.push_back(st->int64(3));
    }
    return st->failed() ? Status(Error{st->error()}) : Status(Ok{});
  }

  Status readKernels() {
    if (!db_.hasTable("kernels")) return Ok{};
    auto names = db_.prepare("SELECT id, name FROM kernel_names ORDER BY id");
    if (!names) return names.error();
    while (names->step()) {
      const auto id = static_cast<size_t>(names->int64(0));
      if (id >= trace_.kernel_names.size()) trace_.kernel_names.resize(id + 1);
      trace_.kernel_names[id] = std::string(names->text(1));
    }
    auto st = db_.prepare("SELECT device, stream, begin_ns, end_ns, name_id, run FROM kernels ORDER BY begin_ns");
    if (!st) return st.error();
    while (st->step()) {
      KernelInterval k;
      k.device = static_cast<int16_t>(st->int64(0));
      k.stream = static_cast<uint32_t>(st->int64(1));
      k.begin_ns = st->int64(2);
      k.end_ns = st->int64(3);
      k.name = static_cast<uint32_t>(st->int64(4));
      k.run = st->isNull(5) ? kNoRun : static_cast<uint16_t>(st->int64(5));
      if (k.name < trace_.kernel_names.size()) trace_.kernels.push_back(k);
    }
    return st->failed() ? Status(Error{st->error()}) : Status(Ok{});
  }

  Status readSegments() {
    auto known = trace_.meta.find(std::string(native::kMetaSegmentsKnown));
    if (known == trace_.meta.end()) return Ok{};
    trace_.segments_known = known->second == "true";
    trace_.meta.erase(known);
    if (!trace_.segments_known || !db_.hasTable("segments") || !db_.hasTable("segment_blocks")) return Ok{};
    auto stackOf = [&](const sql::Statement& st, int column) {
      const int64_t id = st.isNull(column) ? -1 : st.int64(column);
      return id >= 0 && static_cast<size_t>(id) < trace_.stacks.stackCount() ? static_cast<uint32_t>(id) : kNoStack;
    };
    auto seg = db_.prepare("SELECT id, device, address, total_size, stream, pool, expandable, pool_id_a, pool_id_b, stack "
                           "FROM segments ORDER BY id");
    if (!seg) return seg.error();
    std::map<int64_t, size_t> index_of;
    while (seg->step()) {
      SnapshotSegment s;
      s.device = static_cast<int16_t>(seg->int64(1));
      s.address = static_cast<uint64_t>(seg->int64(2));
      s.total_size = seg->int64(3);
      s.stream = static_cast<uint64_t>(seg->int64(4));
      s.small_pool = seg->text(5) == "small";
      s.expandable = seg->int64(6) != 0;
      s.pool_id = {seg->int64(7), seg->int64(8)};
      s.stack = stackOf(*seg, 9);
      index_of[seg->int64(0)] = trace_.segments.size();
      trace_.segments.push_back(std::move(s));
    }
    if (seg->failed()) return Error{seg->error()};
    auto block = db_.prepare("SELECT segment, address, size, requested_size, state, stack FROM segment_blocks ORDER BY "
                             "segment, address");
    if (!block) return block.error();
    while (block->step()) {
      auto it = index_of.find(block->int64(0));
      if (it == index_of.end()) return Error{fmt::format("{}: a block of segment {}, which is missing", db_.path(), block->int64(0))};
      SnapshotBlock b;
      b.address = static_cast<uint64_t>(block->int64(1));
      b.size = block->int64(2);
      b.requested_size = block->int64(3);
      b.state = parseBlockState(block->text(4)).value_or(BlockState::Inactive);
      b.stack = stackOf(*block, 5);
      trace_.segments[it->second].blocks.push_back(b);
    }
    return block->failed() ? Status(Error{block->error()}) : Status(Ok{});
  }

  Status readEvents() {
    return readEventRows(db_.path(), trace_.phases.size(), trace_.stacks.stackCount(), trace_.events, progress_,
                         options_);
  }

  sql::Database db_;
  Progress* progress_;
  EventReadOptions options_;
  Trace trace_;
};

}  // namespace

Result<Trace> readNative(const std::string& path, Progress* progress) { return readNative(path, progress, {}); }

Result<Trace> readNative(const std::string& path, Progress* progress, const EventReadOptions& options) {
  auto db = sql::Database::open(path, sql::Database::Mode::ReadOnly);
  if (!db) return db.error();
  return NativeReader(std::move(*db), progress, options).read();
}

}  // namespace sawtooth
