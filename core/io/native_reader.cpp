// Reading a .sawtooth file, which is data from anywhere: opened without writing beside it
// (native_open.h), its schema checked (native_schema_check.h), every value's type checked as it
// is read, every query bounded in time, and what it holds counted against the memory limit.

#include <sqlite3.h>

#include <charconv>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/io/native_event_reader.h"
#include "core/io/native_format.h"
#include "core/io/native_open.h"
#include "core/io/native_schema_check.h"
#include "core/io/sqlite_db.h"
#include "core/model/meta_keys.h"

namespace sawtooth {
namespace {

const char* typeText(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "an integer";
    case SQLITE_FLOAT: return "a real number";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "a blob";
    default: return "NULL";
  }
}

class NativeReader {
 public:
  NativeReader(native::Source source, sql::Database db, std::shared_ptr<sql::Guard> guard, ReadBudget& budget,
               Progress* progress, const EventReadOptions& options)
      : source_(std::move(source)),
        db_(std::move(db)),
        guard_(std::move(guard)),
        budget_(budget),
        progress_(progress),
        options_(options) {}

  Result<Trace> read() {
    auto present = native::checkSchema(db_);
    if (!present) return present.error();
    present_ = std::move(*present);
    if (Status st = readMeta(); !st) return st.error();
    if (Status st = native::checkColumnsOfVersion(db_, present_, version_); !st) return st.error();
    trace_.format = "sawtooth";
    for (auto step : {&NativeReader::readDevices, &NativeReader::readRuns, &NativeReader::readPhases,
                      &NativeReader::readStacks, &NativeReader::readCounters, &NativeReader::readKernels,
                      &NativeReader::readSegments, &NativeReader::readModules, &NativeReader::readEvents})
      if (Status st = (this->*step)(); !st) return st.error();
    return std::move(trace_);
  }

 private:
  const std::string& path() const { return source_.path; }
  bool has(const char* table) const { return present_.count(table) > 0; }

  // Each value must have its column's type (NULL only where the writer writes NULL): a file is
  // data, and 'abc' in a size column is refused, not read as 0.
  Status expect(const sql::Statement& st, int column, int type, bool nullable, const char* table, const char* name,
                int64_t row) const {
    const int got = st.type(column);
    if (got == type || (nullable && got == SQLITE_NULL) || (type == SQLITE_FLOAT && got == SQLITE_INTEGER)) return Ok{};
    return Error{fmt::format("{}: {} row {}: '{}' is {}, where Sawtooth writes {}", path(), table, row, name,
                             typeText(got), typeText(type))};
  }
  // Takes `bytes` more of the memory limit for what a table adds to the trace.
  Status take(uint64_t bytes, const char* what) {
    if (!budget_.take(bytes)) return Error{fmt::format("{}: {}", path(), budget_.memoryError(what).message)};
    return Ok{};
  }
  Status done(const sql::Statement& st) const { return st.failed() ? Status(Error{st.error()}) : Status(Ok{}); }
  Status checkDevice(int64_t device, const char* table, int64_t row) const {
    if (device < kCpuDevice || device > std::numeric_limits<DeviceId>::max())
      return Error{fmt::format("{}: {} row {}: device {} is not a device (-1 for the CPU, 0 and up for GPUs)", path(),
                               table, row, device)};
    return Ok{};
  }

  Status readMeta() {
    auto st = db_.prepare("SELECT key, value FROM meta");
    if (!st) return st.error();
    int64_t row = 0;
    while (st->step()) {
      for (auto [column, name] : {std::pair{0, "key"}, std::pair{1, "value"}})
        if (Status s = expect(*st, column, SQLITE_TEXT, false, "meta", name, row); !s) return s;
      if (Status s = take(st->text(0).size() + st->text(1).size() + 64, "the meta table"); !s) return s;
      trace_.meta[std::string(st->text(0))] = std::string(st->text(1));
      ++row;
    }
    if (Status s = done(*st); !s) return s;
    auto it = trace_.meta.find(std::string(meta::kFormatVersion));
    if (it == trace_.meta.end()) return Error{fmt::format("{}: no format_version in its meta table", path())};
    const std::string& text = it->second;
    int version = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || text[0] == '-' || text[0] == '+')
      return Error{fmt::format("{}: format_version '{}' is not a whole number", path(), text.substr(0, 40))};
    if (version > native::kFormatVersion)
      return Error{fmt::format("{}: written in .sawtooth format {} by a newer Sawtooth; this build reads up to format "
                               "{}. Update Sawtooth to open it.",
                               path(), version, native::kFormatVersion)};
    if (version < 1) return Error{fmt::format("{}: invalid format_version {}", path(), version)};
    version_ = version;
    trace_.meta.erase(it);
    // The summaries' own keys describe the file, not the trace (io/native_summaries.h).
    std::erase_if(trace_.meta, [](const auto& kv) { return kv.first.starts_with("summary."); });
    // A recording that did not finish cleanly keeps its last part in NAME-wal: say so when that
    // file is not beside this one.
    auto complete = trace_.meta.find(std::string(meta::kComplete));
    if (!source_.missing_wal.empty() && (complete == trace_.meta.end() || complete->second != "true")) {
      std::string& w = trace_.meta["warnings"];
      w += fmt::format("this recording was not closed, and the last part of it is in {}, which is not here: what "
                       "follows stops where that part begins; ",
                       source_.missing_wal);
    }
    return Ok{};
  }

  Status readDevices() {
    if (!has("devices")) return Ok{};
    auto st = db_.prepare("SELECT device, name, total_bytes, baseline_allocated, baseline_reserved FROM devices ORDER BY device");
    if (!st) return st.error();
    int64_t row = 0;
    while (st->step()) {
      if (Status s = expect(*st, 0, SQLITE_INTEGER, false, "devices", "device", row); !s) return s;
      if (Status s = expect(*st, 1, SQLITE_TEXT, true, "devices", "name", row); !s) return s;
      for (auto [column, name] : {std::pair{2, "total_bytes"}, std::pair{3, "baseline_allocated"},
                                  std::pair{4, "baseline_reserved"}})
        if (Status s = expect(*st, column, SQLITE_INTEGER, true, "devices", name, row); !s) return s;
      if (Status s = checkDevice(st->int64(0), "devices", row); !s) return s;
      if (static_cast<uint64_t>(row) >= budget_.limits().max_devices)
        return Error{fmt::format("{}: more than {} devices (the devices limit; {})", path(), budget_.limits().max_devices,
                                 raiseHint("devices"))};
      if (Status s = take(sizeof(DeviceInfo) + st->text(1).size(), "the devices"); !s) return s;
      auto& d = trace_.deviceInfo(static_cast<DeviceId>(st->int64(0)));
      d.name = std::string(st->text(1));
      d.total_bytes = st->int64(2);
      d.baseline_allocated = st->int64(3);
      d.baseline_reserved = st->int64(4);
      ++row;
    }
    return done(*st);
  }

  Status readRuns() {
    if (has("runs")) {
      auto st = db_.prepare("SELECT id, name, workload FROM runs ORDER BY id");
      if (!st) return st.error();
      int64_t row = 0;
      while (st->step()) {
        if (Status s = expect(*st, 0, SQLITE_INTEGER, false, "runs", "id", row); !s) return s;
        if (Status s = expect(*st, 1, SQLITE_TEXT, false, "runs", "name", row); !s) return s;
        if (Status s = expect(*st, 2, SQLITE_TEXT, true, "runs", "workload", row); !s) return s;
        const int64_t id = st->int64(0);
        if (id < 0 || id >= kNoRun) return Error{fmt::format("{}: run id {} out of range", path(), id)};
        if (Status s = take(sizeof(Run) + st->text(1).size() + st->text(2).size(), "the runs"); !s) return s;
        if (trace_.runs.size() <= static_cast<size_t>(id)) {
          if (Status s = take((static_cast<size_t>(id) + 1 - trace_.runs.size()) * sizeof(Run), "the runs"); !s) return s;
          trace_.runs.resize(static_cast<size_t>(id) + 1);
        }
        trace_.runs[static_cast<size_t>(id)].name = std::string(st->text(1));
        trace_.runs[static_cast<size_t>(id)].workload = std::string(st->text(2));
        ++row;
      }
      if (Status s = done(*st); !s) return s;
    }
    if (has("run_config")) {
      auto cfg = db_.prepare("SELECT run_id, key, value FROM run_config ORDER BY rowid");
      if (!cfg) return cfg.error();
      int64_t row = 0;
      while (cfg->step()) {
        if (Status s = expect(*cfg, 0, SQLITE_INTEGER, false, "run_config", "run_id", row); !s) return s;
        if (Status s = expect(*cfg, 1, SQLITE_TEXT, false, "run_config", "key", row); !s) return s;
        if (Status s = expect(*cfg, 2, SQLITE_TEXT, true, "run_config", "value", row); !s) return s;
        if (Status s = take(cfg->text(1).size() + cfg->text(2).size() + 64, "the runs' configuration"); !s) return s;
        const int64_t id = cfg->int64(0);
        if (id >= 0 && static_cast<size_t>(id) < trace_.runs.size())
          trace_.runs[static_cast<size_t>(id)].config.emplace_back(cfg->text(1), cfg->text(2));
        ++row;
      }
      if (Status s = done(*cfg); !s) return s;
    }
    if (has("measurements")) {
      auto m = db_.prepare("SELECT run_id, name, value, unit FROM measurements ORDER BY rowid");
      if (!m) return m.error();
      int64_t row = 0;
      while (m->step()) {
        if (Status s = expect(*m, 0, SQLITE_INTEGER, false, "measurements", "run_id", row); !s) return s;
        if (Status s = expect(*m, 1, SQLITE_TEXT, false, "measurements", "name", row); !s) return s;
        if (Status s = expect(*m, 2, SQLITE_FLOAT, true, "measurements", "value", row); !s) return s;
        if (Status s = expect(*m, 3, SQLITE_TEXT, true, "measurements", "unit", row); !s) return s;
        if (Status s = take(m->text(1).size() + m->text(3).size() + sizeof(Measurement), "the measurements"); !s) return s;
        const int64_t id = m->int64(0);
        if (id >= 0 && static_cast<size_t>(id) < trace_.runs.size())
          trace_.runs[static_cast<size_t>(id)].measurements.push_back(
              Measurement{std::string(m->text(1)), m->real(2), std::string(m->text(3))});
        ++row;
      }
      if (Status s = done(*m); !s) return s;
    }
    return Ok{};
  }

  Status readPhases() {
    if (!has("phases") || !options_.bulk_tables) return Ok{};
    auto st = db_.prepare("SELECT id, name, kind, device, run_id, begin_ns, end_ns FROM phases ORDER BY id");
    if (!st) return st.error();
    int64_t row = 0;
    while (st->step()) {
      if (Status s = expect(*st, 0, SQLITE_INTEGER, false, "phases", "id", row); !s) return s;
      if (Status s = expect(*st, 1, SQLITE_TEXT, false, "phases", "name", row); !s) return s;
      if (Status s = expect(*st, 2, SQLITE_TEXT, false, "phases", "kind", row); !s) return s;
      if (Status s = expect(*st, 3, SQLITE_INTEGER, true, "phases", "device", row); !s) return s;
      if (Status s = expect(*st, 4, SQLITE_INTEGER, true, "phases", "run_id", row); !s) return s;
      if (Status s = expect(*st, 5, SQLITE_INTEGER, false, "phases", "begin_ns", row); !s) return s;
      if (Status s = expect(*st, 6, SQLITE_INTEGER, false, "phases", "end_ns", row); !s) return s;
      const int64_t id = st->int64(0);
      if (id != static_cast<int64_t>(trace_.phases.size()))
        return Error{fmt::format("{}: phase ids are not dense (id {})", path(), id)};
      if (Status s = take(sizeof(Phase) + st->text(1).size(), "the phases"); !s) return s;
      Phase p;
      p.name = std::string(st->text(1));
      p.kind = st->text(2) == "annotation" ? PhaseKind::Annotation : PhaseKind::Phase;
      if (st->isNull(3)) {
        p.device = kAllDevices;
      } else {
        if (Status s = checkDevice(st->int64(3), "phases", row); !s) return s;
        p.device = static_cast<DeviceId>(st->int64(3));
      }
      p.run = st->isNull(4) || st->int64(4) < 0 || st->int64(4) >= kNoRun ? kNoRun : static_cast<uint16_t>(st->int64(4));
      p.begin_ns = st->int64(5);
      p.end_ns = st->int64(6);
      trace_.phases.push_back(std::move(p));
      ++row;
    }
    return done(*st);
  }

  Status readStacks() {
    std::vector<uint32_t> frame_map;
    if (has("frames")) {
      auto f = db_.prepare("SELECT id, name, file, line FROM frames ORDER BY id");
      if (!f) return f.error();
      int64_t row = 0;
      while (f->step()) {
        if (Status s = expect(*f, 0, SQLITE_INTEGER, false, "frames", "id", row); !s) return s;
        if (Status s = expect(*f, 1, SQLITE_TEXT, true, "frames", "name", row); !s) return s;
        if (Status s = expect(*f, 2, SQLITE_TEXT, true, "frames", "file", row); !s) return s;
        if (Status s = expect(*f, 3, SQLITE_INTEGER, true, "frames", "line", row); !s) return s;
        const int64_t id = f->int64(0);
        if (id != static_cast<int64_t>(frame_map.size()))
          return Error{fmt::format("{}: frame ids are not dense (id {})", path(), id)};
        if (frame_map.size() >= budget_.limits().max_frames)
          return Error{fmt::format("{}: more than {} frames (the frames limit; {})", path(), budget_.limits().max_frames,
                                   raiseHint("frames"))};
        if (Status s = take(f->text(1).size() + f->text(2).size() + 48, "the frames"); !s) return s;
        frame_map.push_back(trace_.stacks.internFrame(f->text(1), f->text(2), f->int64(3)));
        ++row;
      }
      if (Status s = done(*f); !s) return s;
    }
    if (!has("stacks")) return Ok{};
    auto s = db_.prepare("SELECT stack_id, frame_id FROM stacks ORDER BY stack_id, depth");
    if (!s) return s.error();
    int64_t current = -1;
    std::vector<uint32_t> frames;
    auto flush = [&]() -> Status {
      if (current < 0) return Ok{};
      if (static_cast<size_t>(current) != trace_.stacks.stackCount() ||
          trace_.stacks.internStack(frames) != static_cast<uint32_t>(current))
        return Error{fmt::format("{}: stack ids are not dense or repeat (id {})", path(), current)};
      if (trace_.stacks.stackCount() > budget_.limits().max_stacks)
        return Error{fmt::format("{}: more than {} stacks (the stacks limit; {})", path(), budget_.limits().max_stacks,
                                 raiseHint("stacks"))};
      frames.clear();
      return Ok{};
    };
    int64_t row = 0;
    while (s->step()) {
      if (Status st = expect(*s, 0, SQLITE_INTEGER, false, "stacks", "stack_id", row); !st) return st;
      if (Status st = expect(*s, 1, SQLITE_INTEGER, false, "stacks", "frame_id", row); !st) return st;
      if (s->int64(0) != current) {
        if (Status st = flush(); !st) return st;
        current = s->int64(0);
      }
      const int64_t fid = s->int64(1);
      if (fid < 0 || static_cast<size_t>(fid) >= frame_map.size())
        return Error{fmt::format("{}: stack {} names missing frame {}", path(), current, fid)};
      if (Status st = take(sizeof(uint32_t) * 3, "the stacks"); !st) return st;
      frames.push_back(frame_map[static_cast<size_t>(fid)]);
      ++row;
    }
    if (Status st = done(*s); !st) return st;
    return flush();
  }

  Status readCounters() {
    if (!options_.bulk_tables) return Ok{};
    if (!has("counters")) return Ok{};
    auto st = db_.prepare("SELECT device, name, after_event, value FROM counters ORDER BY device, name, rowid");
    if (!st) return st.error();
    int64_t row = 0;
    while (st->step()) {
      if (Status s = expect(*st, 0, SQLITE_INTEGER, false, "counters", "device", row); !s) return s;
      if (Status s = expect(*st, 1, SQLITE_TEXT, false, "counters", "name", row); !s) return s;
      if (Status s = expect(*st, 2, SQLITE_INTEGER, false, "counters", "after_event", row); !s) return s;
      if (Status s = expect(*st, 3, SQLITE_INTEGER, false, "counters", "value", row); !s) return s;
      if (Status s = checkDevice(st->int64(0), "counters", row); !s) return s;
      if (Status s = take(16, "the counters"); !s) return s;
      const auto device = static_cast<DeviceId>(st->int64(0));
      std::string_view name = st->text(1);
      if (trace_.counters.empty() || trace_.counters.back().device != device || trace_.counters.back().name != name) {
        if (Status s = take(sizeof(Counter) + name.size(), "the counters"); !s) return s;
        trace_.counters.push_back(Counter{device, std::string(name), {}, {}});
      }
      trace_.counters.back().after_event.push_back(static_cast<uint64_t>(st->int64(2)));
      trace_.counters.back().value.push_back(st->int64(3));
      ++row;
    }
    return done(*st);
  }

  Status readKernels() {
    if (!options_.bulk_tables) return Ok{};
    if (!has("kernels") || !has("kernel_names")) return Ok{};
    auto names = db_.prepare("SELECT id, name FROM kernel_names ORDER BY id");
    if (!names) return names.error();
    int64_t row = 0;
    while (names->step()) {
      if (Status s = expect(*names, 0, SQLITE_INTEGER, false, "kernel_names", "id", row); !s) return s;
      if (Status s = expect(*names, 1, SQLITE_TEXT, false, "kernel_names", "name", row); !s) return s;
      const int64_t id = names->int64(0);
      if (id < 0 || id > row + 1000000)
        return Error{fmt::format("{}: kernel_names row {}: id {} is out of range", path(), row, id)};
      if (Status s = take(names->text(1).size() + sizeof(std::string) * (static_cast<size_t>(id) + 1 > trace_.kernel_names.size()
                                                                            ? static_cast<size_t>(id) + 1 - trace_.kernel_names.size()
                                                                            : 0),
                          "the kernel names");
          !s)
        return s;
      if (static_cast<size_t>(id) >= trace_.kernel_names.size()) trace_.kernel_names.resize(static_cast<size_t>(id) + 1);
      trace_.kernel_names[static_cast<size_t>(id)] = std::string(names->text(1));
      ++row;
    }
    if (Status s = done(*names); !s) return s;
    auto st = db_.prepare("SELECT device, stream, begin_ns, end_ns, name_id, run FROM kernels ORDER BY begin_ns");
    if (!st) return st.error();
    row = 0;
    while (st->step()) {
      for (auto [column, name, nullable] : {std::tuple{0, "device", false}, std::tuple{1, "stream", true},
                                           std::tuple{2, "begin_ns", false}, std::tuple{3, "end_ns", false},
                                           std::tuple{4, "name_id", false}, std::tuple{5, "run", true}})
        if (Status s = expect(*st, column, SQLITE_INTEGER, nullable, "kernels", name, row); !s) return s;
      if (Status s = checkDevice(st->int64(0), "kernels", row); !s) return s;
      if (Status s = take(sizeof(KernelInterval), "the kernels"); !s) return s;
      KernelInterval k;
      k.device = static_cast<DeviceId>(st->int64(0));
      k.stream = static_cast<uint32_t>(st->int64(1));
      k.begin_ns = st->int64(2);
      k.end_ns = st->int64(3);
      k.name = static_cast<uint32_t>(st->int64(4));
      k.run = st->isNull(5) || st->int64(5) < 0 || st->int64(5) >= kNoRun ? kNoRun : static_cast<uint16_t>(st->int64(5));
      if (st->int64(4) >= 0 && k.name < trace_.kernel_names.size()) trace_.kernels.push_back(k);
      ++row;
    }
    return done(*st);
  }

  // The allocator's segments at the trace's end, when the writer said it knew them.
  Status readSegments() {
    if (!options_.bulk_tables) return Ok{};
    auto known = trace_.meta.find(std::string(meta::kSegmentsKnown));
    if (known == trace_.meta.end()) return Ok{};
    trace_.segments_known = known->second == "true";
    trace_.meta.erase(known);
    if (!trace_.segments_known || !has("segments") || !has("segment_blocks")) return Ok{};
    auto stackOf = [&](const sql::Statement& st, int column) {
      const int64_t id = st.isNull(column) ? -1 : st.int64(column);
      return id >= 0 && static_cast<size_t>(id) < trace_.stacks.stackCount() ? static_cast<uint32_t>(id) : kNoStack;
    };
    auto seg = db_.prepare("SELECT id, device, address, total_size, stream, pool, expandable, pool_id_a, pool_id_b, stack "
                           "FROM segments ORDER BY id");
    if (!seg) return seg.error();
    std::map<int64_t, size_t> index_of;
    int64_t row = 0;
    while (seg->step()) {
      for (auto [column, name, nullable] :
           {std::tuple{0, "id", false}, std::tuple{1, "device", false}, std::tuple{2, "address", false},
            std::tuple{3, "total_size", false}, std::tuple{4, "stream", true}, std::tuple{6, "expandable", true},
            std::tuple{7, "pool_id_a", true}, std::tuple{8, "pool_id_b", true}, std::tuple{9, "stack", true}})
        if (Status s = expect(*seg, column, SQLITE_INTEGER, nullable, "segments", name, row); !s) return s;
      if (Status s = expect(*seg, 5, SQLITE_TEXT, false, "segments", "pool", row); !s) return s;
      if (Status s = checkDevice(seg->int64(1), "segments", row); !s) return s;
      if (Status s = take(sizeof(SnapshotSegment) + 48, "the segments"); !s) return s;
      SnapshotSegment s;
      s.device = static_cast<DeviceId>(seg->int64(1));
      s.address = static_cast<uint64_t>(seg->int64(2));
      s.total_size = seg->int64(3);
      s.stream = static_cast<uint64_t>(seg->int64(4));
      s.small_pool = seg->text(5) == "small";
      s.expandable = seg->int64(6) != 0;
      s.pool_id = {seg->int64(7), seg->int64(8)};
      s.stack = stackOf(*seg, 9);
      if (!index_of.emplace(seg->int64(0), trace_.segments.size()).second)
        return Error{fmt::format("{}: segments row {}: id {} is there twice", path(), row, seg->int64(0))};
      trace_.segments.push_back(std::move(s));
      ++row;
    }
    if (Status s = done(*seg); !s) return s;
    auto block = db_.prepare("SELECT segment, address, size, requested_size, state, stack FROM segment_blocks ORDER BY "
                             "segment, address");
    if (!block) return block.error();
    row = 0;
    while (block->step()) {
      for (auto [column, name, nullable] :
           {std::tuple{0, "segment", false}, std::tuple{1, "address", false}, std::tuple{2, "size", false},
            std::tuple{3, "requested_size", true}, std::tuple{5, "stack", true}})
        if (Status s = expect(*block, column, SQLITE_INTEGER, nullable, "segment_blocks", name, row); !s) return s;
      if (Status s = expect(*block, 4, SQLITE_TEXT, false, "segment_blocks", "state", row); !s) return s;
      auto it = index_of.find(block->int64(0));
      if (it == index_of.end())
        return Error{fmt::format("{}: segment_blocks row {}: a block of segment {}, which is missing", path(), row,
                                 block->int64(0))};
      if (Status s = take(sizeof(SnapshotBlock), "the segments' blocks"); !s) return s;
      SnapshotBlock b;
      b.address = static_cast<uint64_t>(block->int64(1));
      b.size = block->int64(2);
      b.requested_size = block->int64(3);
      b.state = parseBlockState(block->text(4)).value_or(BlockState::Inactive);
      b.stack = stackOf(*block, 5);
      trace_.segments[it->second].blocks.push_back(b);
      ++row;
    }
    return done(*block);
  }

  // The module tree (a parent before its children: a tree that names a missing or later parent
  // is refused) and the modules' calls.
  Status readModules() {
    if (!has("modules")) return Ok{};
    auto st = db_.prepare("SELECT id, name, class, parent, parameter_bytes FROM modules ORDER BY id");
    if (!st) return st.error();
    ModuleTree& tree = trace_.modules;
    int64_t row = 0;
    while (st->step()) {
      for (auto [column, name, nullable] : {std::tuple{0, "id", false}, std::tuple{3, "parent", true},
                                           std::tuple{4, "parameter_bytes", true}})
        if (Status s = expect(*st, column, SQLITE_INTEGER, nullable, "modules", name, row); !s) return s;
      if (Status s = expect(*st, 1, SQLITE_TEXT, false, "modules", "name", row); !s) return s;
      if (Status s = expect(*st, 2, SQLITE_TEXT, true, "modules", "class", row); !s) return s;
      const int64_t id = st->int64(0);
      if (id != static_cast<int64_t>(tree.modules.size()))
        return Error{fmt::format("{}: modules row {}: module ids are not dense (id {})", path(), row, id)};
      const int64_t parent = st->isNull(3) ? -1 : st->int64(3), bytes = st->int64(4);
      if (parent < -1 || parent >= kNoModule)
        return Error{fmt::format("{}: modules row {} ('{}'): parent {} is not a module id", path(), row,
                                 st->text(1).substr(0, 200), parent)};
      if (bytes < 0)
        return Error{fmt::format("{}: modules row {} ('{}'): parameter_bytes {} is negative", path(), row,
                                 st->text(1).substr(0, 200), bytes)};
      if (Status s = take(sizeof(Module) + st->text(1).size() + st->text(2).size(), "the modules"); !s) return s;
      tree.modules.push_back(Module{std::string(st->text(1)), std::string(st->text(2)),
                                    parent < 0 ? kNoModule : static_cast<uint32_t>(parent), bytes});
      ++row;
    }
    if (Status s = done(*st); !s) return s;
    if (std::string wrong = checkModuleTree(tree.modules); !wrong.empty())
      return Error{fmt::format("{}: modules table: {}", path(), wrong)};
    if (!has("module_calls") || !options_.bulk_tables) return Ok{};
    auto calls = db_.prepare("SELECT module, pass, run, begin_ns, end_ns FROM module_calls ORDER BY begin_ns, rowid");
    if (!calls) return calls.error();
    row = 0;
    while (calls->step()) {
      for (auto [column, name, nullable] : {std::tuple{0, "module", false}, std::tuple{1, "pass", false},
                                           std::tuple{2, "run", true}, std::tuple{3, "begin_ns", false},
                                           std::tuple{4, "end_ns", false}})
        if (Status s = expect(*calls, column, SQLITE_INTEGER, nullable, "module_calls", name, row); !s) return s;
      const int64_t module = calls->int64(0), pass = calls->int64(1), run = calls->isNull(2) ? -1 : calls->int64(2);
      if (module < 0 || static_cast<uint64_t>(module) >= tree.modules.size())
        return Error{fmt::format("{}: module_calls row {}: module {} is past the module tree ({} modules)", path(), row,
                                 module, tree.modules.size())};
      if (pass < 0 || pass >= kPassCount)
        return Error{fmt::format("{}: module_calls row {}: pass {} is not a pass (0 to {})", path(), row, pass,
                                 kPassCount - 1)};
      if (Status s = take(sizeof(ModuleCall), "the module calls"); !s) return s;
      tree.calls.push_back(ModuleCall{static_cast<uint32_t>(module), static_cast<Pass>(pass),
                                      run >= 0 && run < kNoRun ? static_cast<uint16_t>(run) : kNoRun, calls->int64(3),
                                      calls->int64(4)});
      ++row;
    }
    return done(*calls);
  }

  Status readEvents() {
    if (!options_.events) return Ok{};
    EventColumns columns;
    columns.phase_count = trace_.phases.size();
    columns.stack_count = trace_.stacks.stackCount();
    columns.modules = version_ >= native::kFirstModuleVersion;
    columns.module_count = trace_.modules.size();
    return readEventRows(source_, guard_, budget_, columns, trace_.events, progress_, options_);
  }

  native::Source source_;
  sql::Database db_;
  std::shared_ptr<sql::Guard> guard_;
  ReadBudget& budget_;
  Progress* progress_;
  EventReadOptions options_;
  std::set<std::string> present_;
  int version_ = 0;
  Trace trace_;
};

}  // namespace

Result<Trace> readNative(const std::string& path, Progress* progress) {
  return readNative(path, progress, ReadLimits{}, EventReadOptions{});
}
Result<Trace> readNative(const std::string& path, Progress* progress, const EventReadOptions& options) {
  return readNative(path, progress, ReadLimits{}, options);
}
Result<Trace> readNative(const std::string& path, Progress* progress, const ReadLimits& limits) {
  return readNative(path, progress, limits, EventReadOptions{});
}

Result<Trace> readNative(const std::string& path, Progress* progress, const ReadLimits& limits,
                         const EventReadOptions& options) {
  ReadBudget budget(limits);
  return readNative(path, progress, budget, options);
}

Result<Trace> readNative(const std::string& path, Progress* progress, ReadBudget& budget,
                         const EventReadOptions& options) {
  const ReadLimits& limits = budget.limits();
  auto source = native::planOpen(path, limits);
  if (!source) return source.error();
  auto guard = native::makeGuard(budget, progress);
  auto db = native::openSource(*source, guard, limits);
  if (!db) return db.error();
  return NativeReader(std::move(*source), std::move(*db), guard, budget, progress, options).read();
}

}  // namespace sawtooth
