#include "io/snapshot_importer.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "io/pickle_text.h"
#include "model/phase_assignment.h"
#include "util/wrapping.h"

namespace sawtooth {
namespace {

using pickle::Document;
using pickle::Kind;
using pickle::Value;

struct RawEntry {
  Action action;
  int16_t device;
  uint64_t addr;
  int64_t size;
  uint64_t stream;
  int64_t time_us;
  uint32_t stack;
};

int64_t asInt(const Value& v) { return v.isInt() ? v.i : 0; }

// Times become nanoseconds since the first one. Bounding them keeps every difference times 1000
// inside 64 bits; the bound (about the year 2116 in Unix microseconds) is far past any real clock.
constexpr int64_t kMaxAbsTimeUs = std::numeric_limits<int64_t>::max() / 2000;
bool timeInRange(int64_t time_us) { return time_us >= -kMaxAbsTimeUs && time_us <= kMaxAbsTimeUs; }

class SnapshotReader {
 public:
  SnapshotReader(const Document& doc, Progress* progress) : doc_(doc), progress_(progress) {}

  Result<Trace> read() {
    trace_.format = "pytorch-snapshot";
    const Value& root = doc_.root();
    const Value* segments = nullptr;
    const Value* traces = nullptr;
    if (root.kind == Kind::List) {
      segments = &root;  // PyTorch before 2.0 pickled the segment list alone
    } else if (root.kind == Kind::Dict) {
      segments = doc_.get(root, "segments");
      traces = doc_.get(root, "device_traces");
      if (!segments && !traces)
        return Error{"this pickle is a dict without 'segments' or 'device_traces': not a PyTorch memory snapshot"};
    } else {
      return Error{fmt::format("the pickle holds a {}, not a PyTorch memory snapshot (a dict)", pickle::kindName(root.kind))};
    }

    if (traces) {
      if (traces->kind != Kind::List) return Error{"'device_traces' is not a list"};
      if (Status st = readTraces(*traces); !st) return st.error();
    }
    if (segments) {
      if (segments->kind != Kind::List) return Error{"'segments' is not a list"};
      if (Status st = readSegments(*segments); !st) return st.error();
    }
    if (root.kind == Kind::Dict) {
      if (const Value* ann = doc_.get(root, "external_annotations"))
        if (Status st = readAnnotations(*ann); !st) return st.error();
      if (const Value* settings = doc_.get(root, "allocator_settings")) {
        auto kv = doc_.items(*settings);
        for (size_t i = 0; i + 1 < kv.size(); i += 2)
          if (kv[i].kind == Kind::Str)
            trace_.meta["allocator." + std::string(doc_.str(kv[i]))] = pickle::toText(doc_, kv[i + 1]);
      }
    }
    buildEvents();
    if (!warnings_.empty()) trace_.meta["warnings"] = warnings_;
    return std::move(trace_);
  }

 private:
  Status readTraces(const Value& traces) {
    auto devices = doc_.items(traces);
    size_t total = 0;
    for (const Value& t : devices) total += doc_.items(t).size();
    entries_.reserve(total);
    size_t done = 0;
    for (size_t d = 0; d < devices.size(); ++d) {
      if (devices[d].kind != Kind::List) return Error{fmt::format("device_traces[{}] is not a list", d)};
      if (d > static_cast<size_t>(std::numeric_limits<int16_t>::max())) return Error{"more than 32767 devices"};
      const auto device = static_cast<int16_t>(d);
      trace_.deviceInfo(device);
      size_t index = 0;
      for (const Value& entry : doc_.items(devices[d])) {
        if (Status st = readEntry(entry, device, index++); !st) return st;
        if (++done % 65536 == 0 && progress_) {
          if (progress_->cancelled()) return Error{"cancelled"};
          progress_->report(done, total);
        }
      }
    }
    return Ok{};
  }

  Status readEntry(const Value& entry, int16_t device, size_t index) {
    if (entry.kind != Kind::Dict)
      return Error{fmt::format("device_traces[{}][{}] is a {}, not a dict", device, index, pickle::kindName(entry.kind))};
    RawEntry e{Action::Alloc, device, 0, 0, 0, 0, kNoStack};
    bool has_action = false;
    std::string_view action_text;
    auto kv = doc_.items(entry);
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      if (kv[i].kind != Kind::Str) continue;
      std::string_view key = doc_.str(kv[i]);
      const Value& v = kv[i + 1];
      if (key == "action") {
        if (v.kind != Kind::Str) return Error{fmt::format("device_traces[{}][{}]: 'action' is not a string", device, index)};
        action_text = doc_.str(v);
        has_action = true;
      } else if (key == "addr" || key == "device_free") {
        e.addr = static_cast<uint64_t>(asInt(v));
      } else if (key == "size") {
        e.size = asInt(v);
      } else if (key == "stream") {
        e.stream = static_cast<uint64_t>(asInt(v));
      } else if (key == "time_us") {
        e.time_us = asInt(v);
        if (!timeInRange(e.time_us))
          return Error{fmt::format("device_traces[{}][{}]: time_us {} is out of range", device, index, e.time_us)};
      } else if (key == "frames") {
        e.stack = internStack(v);
      }
    }
    if (!has_action) return Error{fmt::format("device_traces[{}][{}] has no 'action'", device, index)};
    auto action = actionFromText(action_text);
    if (!action) {
      ++unknown_actions_[std::string(action_text)];
      if (unknown_actions_[std::string(action_text)] == 1)
        warnings_ += fmt::format("skipped unknown action '{}'; ", action_text);
      return Ok{};
    }
    e.action = *action;
    entries_.push_back(e);
    return Ok{};
  }

  static std::optional<Action> actionFromText(std::string_view text) {
    if (auto a = parseAction(text); a && *a != Action::Sample) return a;
    return std::nullopt;
  }

  uint32_t internFrame(const Value& frame) {
    if (frame.isContainer()) {
      auto it = frame_cache_.find(frame.container);
      if (it != frame_cache_.end()) return it->second;
    }
    std::string_view name, file;
    int64_t line = 0;
    if (const Value* v = doc_.get(frame, "name"); v && v->kind == Kind::Str) name = doc_.str(*v);
    if (const Value* v = doc_.get(frame, "filename"); v && v->kind == Kind::Str) file = doc_.str(*v);
    if (const Value* v = doc_.get(frame, "line")) line = asInt(*v);
    uint32_t id = trace_.stacks.internFrame(name, file, line);
    if (frame.isContainer()) frame_cache_.emplace(frame.container, id);
    return id;
  }

  uint32_t internStack(const Value& frames) {
    if (frames.kind != Kind::List) return kNoStack;
    auto items = doc_.items(frames);
    if (items.empty()) return kNoStack;
    auto it = stack_cache_.find(frames.container);
    if (it != stack_cache_.end()) return it->second;
    frame_ids_.clear();
    for (const Value& f : items) frame_ids_.push_back(internFrame(f));
    uint32_t id = trace_.stacks.internStack(frame_ids_);
    stack_cache_.emplace(frames.container, id);
    return id;
  }

  Status readSegments(const Value& segments) {
    size_t index = 0;
    for (const Value& seg : doc_.items(segments)) {
      if (seg.kind != Kind::Dict) return Error{fmt::format("segments[{}] is not a dict", index)};
      int64_t device = 0;
      if (const Value* v = doc_.get(seg, "device")) device = asInt(*v);
      if (device < std::numeric_limits<int16_t>::min() || device > std::numeric_limits<int16_t>::max())
        return Error{fmt::format("segments[{}]: device {} out of range", index, device)};
      auto& info = trace_.deviceInfo(static_cast<int16_t>(device));
      if (const Value* v = doc_.get(seg, "total_size"))
        final_reserved_[info.device] = wrappingAdd(final_reserved_[info.device], asInt(*v));
      if (const Value* blocks = doc_.get(seg, "blocks")) {
        for (const Value& block : doc_.items(*blocks)) {
          const Value* state = doc_.get(block, "state");
          if (!state || state->kind != Kind::Str) continue;
          std::string_view s = doc_.str(*state);
          if (s == "active_allocated" || s == "active_pending_free")
            if (const Value* v = doc_.get(block, "requested_size"))
              final_allocated_[info.device] = wrappingAdd(final_allocated_[info.device], asInt(*v));
        }
      }
      ++index;
    }
    has_segments_ = true;
    return Ok{};
  }

  Status readAnnotations(const Value& annotations) {
    if (annotations.kind != Kind::List) return Error{"'external_annotations' is not a list"};
    size_t index = 0;
    for (const Value& a : doc_.items(annotations)) {
      if (a.kind != Kind::Dict) return Error{fmt::format("external_annotations[{}] is not a dict", index)};
      RawAnnotation r;
      if (const Value* v = doc_.get(a, "name"); v && v->kind == Kind::Str) r.name = std::string(doc_.str(*v));
      if (const Value* v = doc_.get(a, "stage"); v && v->kind == Kind::Str) r.start = doc_.str(*v) == "START";
      if (const Value* v = doc_.get(a, "device")) r.device = static_cast<int16_t>(asInt(*v));
      if (const Value* v = doc_.get(a, "time_us")) r.time_us = asInt(*v);
      if (!timeInRange(r.time_us))
        return Error{fmt::format("external_annotations[{}]: time_us {} is out of range", index, r.time_us)};
      annotations_.push_back(std::move(r));
      ++index;
    }
    return Ok{};
  }

  void buildEvents() {
    int64_t t0 = std::numeric_limits<int64_t>::max();
    int64_t t1 = std::numeric_limits<int64_t>::min();
    for (const auto& e : entries_) t0 = std::min(t0, e.time_us), t1 = std::max(t1, e.time_us);
    for (const auto& a : annotations_) t0 = std::min(t0, a.time_us), t1 = std::max(t1, a.time_us);
    if (t0 == std::numeric_limits<int64_t>::max()) t0 = t1 = 0;
    trace_.meta["t0_unix_ns"] = std::to_string(t0 * 1000);

    std::unordered_map<int16_t, int64_t> net_allocated, net_reserved;
    auto& events = trace_.events;
    events.reserve(entries_.size());
    for (const auto& r : entries_) {
      Event e;
      e.t_ns = (r.time_us - t0) * 1000;
      e.device = r.device;
      e.source = Source::Allocator;
      e.action = r.action;
      e.addr = r.addr;
      e.size = r.size;
      e.stream = r.stream;
      e.stack = r.stack;
      events.push(e);
      net_allocated[r.device] = wrappingAdd(net_allocated[r.device], wrappingMul(allocatedSign(r.action), r.size));
      net_reserved[r.device] = wrappingAdd(net_reserved[r.device], wrappingMul(reservedSign(r.action), r.size));
    }
    entries_.clear();
    entries_.shrink_to_fit();

    // The trace starts mid-run: what was alive before it began is what is alive at the end minus
    // what the trace itself added.
    if (has_segments_) {
      for (auto& info : trace_.devices) {
        info.baseline_allocated = wrappingSub(final_allocated_[info.device], net_allocated[info.device]);
        info.baseline_reserved = wrappingSub(final_reserved_[info.device], net_reserved[info.device]);
      }
    }

    buildPhases((t1 - t0) * 1000, t0);
    assignPhases(trace_);
  }

  void buildPhases(int64_t end_ns, int64_t t0_us) {
    // Pair START/END per (device, name); unmatched starts run to the end, unmatched ends from 0.
    std::vector<std::pair<size_t, size_t>> open;  // (annotation index, phase index)
    for (size_t i = 0; i < annotations_.size(); ++i) {
      const auto& a = annotations_[i];
      const int64_t t = (a.time_us - t0_us) * 1000;
      if (a.start) {
        trace_.phases.push_back(Phase{a.name, PhaseKind::Annotation, a.device, kNoRun, t, end_ns});
        open.emplace_back(i, trace_.phases.size() - 1);
        continue;
      }
      auto it = std::find_if(open.rbegin(), open.rend(), [&](const auto& o) {
        return annotations_[o.first].name == a.name && annotations_[o.first].device == a.device;
      });
      if (it != open.rend()) {
        trace_.phases[it->second].end_ns = t;
        open.erase(std::next(it).base());
      } else {
        trace_.phases.push_back(Phase{a.name, PhaseKind::Annotation, a.device, kNoRun, 0, t});
      }
    }
  }

  struct RawAnnotation {
    std::string name;
    bool start = false;
    int16_t device = 0;
    int64_t time_us = 0;
  };

  const Document& doc_;
  Progress* progress_;
  Trace trace_;
  std::vector<RawEntry> entries_;
  std::vector<RawAnnotation> annotations_;
  std::unordered_map<uint32_t, uint32_t> frame_cache_;  // frame dict container → frame id
  std::unordered_map<uint32_t, uint32_t> stack_cache_;  // frames list container → stack id
  std::vector<uint32_t> frame_ids_;
  std::unordered_map<int16_t, int64_t> final_allocated_, final_reserved_;
  std::unordered_map<std::string, size_t> unknown_actions_;
  std::string warnings_;
  bool has_segments_ = false;
};

}  // namespace

Result<Trace> importSnapshot(const pickle::Document& doc, Progress* progress) {
  return SnapshotReader(doc, progress).read();
}

}  // namespace sawtooth
