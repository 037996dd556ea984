#include "core/io/snapshot_importer.h"

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "core/io/pickle_text.h"
#include "core/io/snapshot_segments.h"
#include "core/model/phase_assignment.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

using pickle::Document;
using pickle::Kind;
using pickle::Value;

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
    trace_.events.reserve(total);
    net_allocated_.assign(devices.size(), 0);
    net_reserved_.assign(devices.size(), 0);
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

  enum class Field : uint8_t { Other, Action, Addr, Size, Stream, TimeUs, Frames };

  static Field classify(std::string_view key) {
    if (key == "action") return Field::Action;
    if (key == "addr" || key == "device_free") return Field::Addr;
    if (key == "size") return Field::Size;
    if (key == "stream") return Field::Stream;
    if (key == "time_us") return Field::TimeUs;
    if (key == "frames") return Field::Frames;
    return Field::Other;
  }

  // Python's pickler writes each distinct string once and refers back to it, and every entry
  // lists its keys in the same order: the key at position k is, byte for byte, the one the
  // previous entry had there. Comparing where its bytes lie replaces the string compares; keys
  // that were not memoized still work, through classify().
  struct SeenKey {
    const char* data = nullptr;
    size_t size = 0;
    Field field = Field::Other;
  };
  Field fieldAt(size_t position, std::string_view key) {
    if (position >= seen_keys_.size()) return classify(key);
    SeenKey& seen = seen_keys_[position];
    if (seen.data != key.data() || seen.size != key.size()) seen = {key.data(), key.size(), classify(key)};
    return seen.field;
  }

  // The same for the few action strings, wherever they are.
  struct KnownText {
    const char* data;
    size_t size;
    uint8_t meaning;
  };
  template <typename F>
  static uint8_t lookup(std::vector<KnownText>& known, std::string_view text, F&& meaning) {
    for (const KnownText& k : known)
      if (k.data == text.data() && k.size == text.size()) return k.meaning;
    const uint8_t m = meaning(text);
    if (known.size() < 32) known.push_back({text.data(), text.size(), m});
    return m;
  }

  Status readEntry(const Value& entry, int16_t device, size_t index) {
    if (entry.kind != Kind::Dict)
      return Error{fmt::format("device_traces[{}][{}] is a {}, not a dict", device, index, pickle::kindName(entry.kind))};
    Event e;
    e.device = device;
    e.source = Source::Allocator;
    int64_t time_us = 0;
    const Value* action_value = nullptr;
    auto kv = doc_.items(entry);
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      if (kv[i].kind != Kind::Str) continue;
      const Value& v = kv[i + 1];
      switch (fieldAt(i / 2, doc_.str(kv[i]))) {
        case Field::Action:
          if (v.kind != Kind::Str) return Error{fmt::format("device_traces[{}][{}]: 'action' is not a string", device, index)};
          action_value = &v;
          break;
        case Field::Addr: e.addr = static_cast<uint64_t>(asInt(v)); break;
        case Field::Size: e.size = asInt(v); break;
        case Field::Stream: e.stream = static_cast<uint64_t>(asInt(v)); break;
        case Field::TimeUs:
          time_us = asInt(v);
          if (!timeInRange(time_us))
            return Error{fmt::format("device_traces[{}][{}]: time_us {} is out of range", device, index, time_us)};
          break;
        case Field::Frames: e.stack = internStack(v); break;
        case Field::Other: break;
      }
    }
    if (!action_value) return Error{fmt::format("device_traces[{}][{}] has no 'action'", device, index)};
    const std::string_view action_text = doc_.str(*action_value);
    constexpr uint8_t kUnknown = 0xff;
    const uint8_t action = lookup(known_actions_, action_text, [](std::string_view text) {
      auto a = actionFromText(text);
      return a ? static_cast<uint8_t>(*a) : kUnknown;
    });
    if (action == kUnknown) {
      if (++unknown_actions_[std::string(action_text)] == 1)
        warnings_ += fmt::format("skipped unknown action '{}'; ", action_text);
      return Ok{};
    }
    e.action = static_cast<Action>(action);
    // Nanoseconds since the first event once it is known (buildEvents); the bound on time_us
    // keeps this product, and the later shift, inside 64 bits.
    e.t_ns = time_us * 1000;
    t0_us_ = std::min(t0_us_, time_us);
    t1_us_ = std::max(t1_us_, time_us);
    trace_.events.push(e);
    const auto d = static_cast<size_t>(device);
    net_allocated_[d] = wrappingAdd(net_allocated_[d], wrappingMul(allocatedSign(e.action), e.size));
    net_reserved_[d] = wrappingAdd(net_reserved_[d], wrappingMul(reservedSign(e.action), e.size));
    return Ok{};
  }

  static std::optional<Action> actionFromText(std::string_view text) {
    if (auto a = parseAction(text); a && *a != Action::Sample) return a;
    return std::nullopt;
  }

  // The id already interned for a container (a frames list or a frame dict: each container has
  // one kind, so one table serves both), by container index; kNotInterned when none yet.
  static constexpr uint32_t kNotInterned = UINT32_MAX;
  uint32_t& internedId(const Value& container) {
    if (interned_.empty()) interned_.assign(doc_.containerCount(), kNotInterned);
    return interned_[container.container];
  }

  uint32_t internFrame(const Value& frame) {
    if (frame.isContainer())
      if (uint32_t id = internedId(frame); id != kNotInterned) return id;
    std::string_view name, file;
    int64_t line = 0;
    if (const Value* v = doc_.get(frame, "name"); v && v->kind == Kind::Str) name = doc_.str(*v);
    if (const Value* v = doc_.get(frame, "filename"); v && v->kind == Kind::Str) file = doc_.str(*v);
    if (const Value* v = doc_.get(frame, "line")) line = asInt(*v);
    uint32_t id = trace_.stacks.internFrame(name, file, line);
    if (frame.isContainer()) internedId(frame) = id;
    return id;
  }

  uint32_t internStack(const Value& frames) {
    if (frames.kind != Kind::List) return kNoStack;
    auto items = doc_.items(frames);
    if (items.empty()) return kNoStack;
    if (uint32_t id = internedId(frames); id != kNotInterned) return id;
    frame_ids_.clear();
    for (const Value& f : items) frame_ids_.push_back(internFrame(f));
    uint32_t id = trace_.stacks.internStack(frame_ids_);
    internedId(frames) = id;
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
      // The segments themselves, for the allocator replay (core/analysis/allocator_history).
      auto parsed = readSnapshotSegment(doc_, seg, index, [this](const Value& frames) { return internStack(frames); }, &warnings_);
      if (!parsed) return parsed.error();
      trace_.segments.push_back(std::move(*parsed));
      ++index;
    }
    has_segments_ = true;
    trace_.segments_known = true;
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
    int64_t t0 = t0_us_, t1 = t1_us_;
    for (const auto& a : annotations_) t0 = std::min(t0, a.time_us), t1 = std::max(t1, a.time_us);
    if (t0 == std::numeric_limits<int64_t>::max()) t0 = t1 = 0;
    trace_.meta["t0_unix_ns"] = std::to_string(t0 * 1000);
    trace_.events.shiftTimes(-t0 * 1000);
    if (!unknown_actions_.empty()) trace_.events.shrinkToFit();  // room was reserved for the skipped

    // The trace starts mid-run: what was alive before it began is what is alive at the end minus
    // what the trace itself added.
    if (has_segments_) {
      auto net = [](const std::vector<int64_t>& per_device, int16_t device) {
        return device >= 0 && static_cast<size_t>(device) < per_device.size() ? per_device[static_cast<size_t>(device)] : 0;
      };
      for (auto& info : trace_.devices) {
        info.baseline_allocated = wrappingSub(final_allocated_[info.device], net(net_allocated_, info.device));
        info.baseline_reserved = wrappingSub(final_reserved_[info.device], net(net_reserved_, info.device));
      }
    }

    buildPhases((t1 - t0) * 1000, t0);
    trace_.phases.shrink_to_fit();  // one per annotation pair: thousands in a long snapshot
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
  std::vector<RawAnnotation> annotations_;
  std::vector<uint32_t> interned_;
  std::array<SeenKey, 16> seen_keys_{};
  std::vector<KnownText> known_actions_;
  int64_t t0_us_ = std::numeric_limits<int64_t>::max();
  int64_t t1_us_ = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> net_allocated_, net_reserved_;  // by device, over the trace's own events
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
