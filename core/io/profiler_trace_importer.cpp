#include "core/io/profiler_trace_importer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/io/file_bytes.h"
#include "core/model/phase_assignment.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

namespace od = simdjson::ondemand;

struct MemoryRecord {
  double ts_us = 0;
  bool oom = false;
  int64_t bytes = 0;
  uint64_t addr = 0;
  int64_t device_id = 0;
  int64_t device_type = 0;
  int64_t total_allocated = -1;
  int64_t total_reserved = -1;
};

struct RangeRecord {
  std::string name;
  double ts_us = 0;
  double dur_us = 0;
};

constexpr int64_t kDeviceTypeCpu = 0;
constexpr int64_t kDeviceTypeCuda = 1;

// A value's JSON text for messages: at most 40 bytes of it.
std::string shown(od::value v) {
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back()))) raw.remove_suffix(1);
  return raw.size() > 40 ? std::string(raw.substr(0, 40)) + "…" : std::string(raw);
}

template <typename T>
bool parseAll(std::string_view text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Whole numbers as torch.profiler writes them: JSON integers, numbers with no fraction, or either
// quoted ("123", as some writers do), within [lo, hi]. Anything else (1.5, 1e300, 2^70, "NaN",
// true) is nullopt: never a 0 or a rounded value in its place.
std::optional<int64_t> wholeNumber(od::value v, int64_t lo, int64_t hi) {
  int64_t i = 0;
  if (!v.get_int64().get(i)) return i >= lo && i <= hi ? std::optional(i) : std::nullopt;
  double d = 0;
  std::string_view text;
  if (!v.get_string().get(text)) {
    if (parseAll(text, i)) return i >= lo && i <= hi ? std::optional(i) : std::nullopt;
    if (!parseAll(text, d)) return std::nullopt;
  } else if (v.get_double().get(d)) {
    return std::nullopt;
  }
  if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) || d >= 0x1p63 || d > static_cast<double>(hi))
    return std::nullopt;
  return static_cast<int64_t>(d);
}

// An address: a whole number in [0, 2^64).
std::optional<uint64_t> address(od::value v) {
  uint64_t u = 0;
  if (!v.get_uint64().get(u)) return u;
  if (auto i = wholeNumber(v, 0, std::numeric_limits<int64_t>::max())) return static_cast<uint64_t>(*i);
  return std::nullopt;
}

// A time in microseconds: any finite number, or one quoted; never NaN or an infinity.
std::optional<double> finiteNumber(od::value v) {
  double d = 0;
  std::string_view text;
  if (!v.get_double().get(d)) return std::isfinite(d) ? std::optional(d) : std::nullopt;
  if (!v.get_string().get(text) && parseAll(text, d) && std::isfinite(d)) return d;
  return std::nullopt;
}

// baseTimeNanoseconds and the CUDA versions, kept as text in the meta table.
std::string metaNumber(od::value v) {
  if (auto i = wholeNumber(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()))
    return std::to_string(*i);
  return shown(v);
}

std::string describe(simdjson::error_code code) { return simdjson::error_message(code); }

class ProfilerTraceReader {
 public:
  ProfilerTraceReader(Progress* progress, ReadBudget& budget) : progress_(progress), budget_(budget) {}

  Result<Trace> read(const char* data, size_t size, size_t capacity) {
    trace_.format = "torch-profiler";
    // simdjson's index of the document takes a few bytes per input byte.
    if (!budget_.take(uint64_t{size} * 2)) return budget_.memoryError("the JSON index");
    od::parser parser;
    const size_t depth = static_cast<size_t>(std::min<uint64_t>(budget_.limits().max_depth, 1u << 16));
    if (auto error = parser.allocate(std::max<size_t>(size, 64), depth))
      return Error{fmt::format("cannot prepare the JSON reader ({})", describe(error))};
    od::document doc;
    auto error = parser.iterate(data, size, capacity).get(doc);
    if (error) return Error{fmt::format("not valid JSON ({})", describe(error))};
    doc_ = &doc;
    total_ = size;
    base_ = data;

    od::json_type type;
    if ((error = doc.type().get(type))) return Error{fmt::format("not valid JSON ({})", describe(error))};
    if (type == od::json_type::array) {
      od::array events;
      if ((error = doc.get_array().get(events))) return jsonError(error);
      if (Status st = readEvents(events); !st) return st.error();
    } else if (type == od::json_type::object) {
      od::object root;
      if ((error = doc.get_object().get(root))) return jsonError(error);
      bool saw_events = false;
      for (auto field : root) {
        std::string_view key;
        if ((error = field.unescaped_key().get(key))) return jsonError(error);
        od::value value;
        if ((error = field.value().get(value))) return jsonError(error);
        if (key == "traceEvents") {
          od::array events;
          if ((error = value.get_array().get(events))) return Error{"'traceEvents' is not an array"};
          if (Status st = readEvents(events); !st) return st.error();
          saw_events = true;
        } else if (key == "deviceProperties") {
          readDeviceProperties(value);
        } else if (key == "baseTimeNanoseconds") {
          trace_.meta["profiler.baseTimeNanoseconds"] = metaNumber(value);
        } else if (key == "cuda_driver_version" || key == "cuda_runtime_version" || key == "cupti_version") {
          trace_.meta["profiler." + std::string(key)] = metaNumber(value);
        }
      }
      if (!saw_events) return Error{"a JSON object without 'traceEvents': not a torch.profiler / Chrome trace"};
    } else {
      return Error{"JSON that is neither a trace object nor an event array"};
    }
    if (memory_.empty() && ranges_.empty())
      return Error{"a Chrome trace without '[memory]' events: record it with torch.profiler.profile(profile_memory=True)"};
    if (Status st = build(); !st) return st.error();
    return std::move(trace_);
  }

 private:
  Error jsonError(simdjson::error_code code) const {
    return Error{fmt::format("malformed JSON ({})", describe(code))};
  }

  Status readEvents(od::array& events) {
    size_t count = 0;
    for (auto element : events) {
      od::object event;
      if (auto error = element.get_object().get(event)) {
        if (error == simdjson::INCORRECT_TYPE)
          return Error{fmt::format("trace event {} is not a JSON object: not a torch.profiler / Chrome trace", count)};
        return Error{fmt::format("trace event {}: malformed JSON ({})", count, describe(error))};
      }
      if (Status st = readEvent(event, count); !st) return st;
      if (++count % 4096 == 0) {
        // What the records take so far, counted in steps.
        const uint64_t bytes = memory_.capacity() * sizeof(MemoryRecord) + ranges_.capacity() * sizeof(RangeRecord);
        if (bytes > charged_) {
          if (!budget_.take(bytes - charged_)) return budget_.memoryError("the memory events");
          charged_ = bytes;
        }
        if (budget_.pastDeadline()) return budget_.timeError();
      }
      if (count % 4096 == 0 && progress_) {
        if (progress_->cancelled()) return Error{"cancelled"};
        const char* at = nullptr;
        if (!doc_->current_location().get(at)) progress_->report(static_cast<uint64_t>(at - base_), total_);
      }
    }
    return Ok{};
  }

  Status readEvent(od::object& event, size_t index) {
    std::string_view name, ph, cat;
    double ts = 0, dur = 0;
    bool has_args = false;
    MemoryRecord mem;
    // A value that cannot be read matters only for the events kept (memory events, annotations):
    // the first such value, said once the event's name is known.
    std::string bad;
    auto note = [&](std::string_view field, od::value v, std::string_view wanted) {
      if (bad.empty()) bad = fmt::format("{} is {}, not {}", field, shown(v), wanted);
    };
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
    for (auto field : event) {
      std::string_view key;
      if (auto error = field.unescaped_key().get(key)) return Error{fmt::format("traceEvents[{}]: {}", index, describe(error))};
      od::value value;
      if (auto error = field.value().get(value)) return Error{fmt::format("traceEvents[{}]: {}", index, describe(error))};
      if (key == "name") {
        if (value.get_string().get(name)) name = {};
        name_storage_.assign(name);  // the view dies with the next string read
        name = name_storage_;
      } else if (key == "ph") {
        if (value.get_string().get(ph)) ph = {};
        ph_storage_.assign(ph);
        ph = ph_storage_;
      } else if (key == "cat") {
        if (value.get_string().get(cat)) cat = {};
        cat_storage_.assign(cat);
        cat = cat_storage_;
      } else if (key == "ts") {
        if (auto t = finiteNumber(value)) ts = *t;
        else note("ts", value, "a finite number of microseconds");
      } else if (key == "dur") {
        if (auto t = finiteNumber(value)) dur = *t;
        else note("dur", value, "a finite number of microseconds");
      } else if (key == "args") {
        od::object args;
        if (value.get_object().get(args)) continue;
        has_args = true;
        for (auto arg : args) {
          std::string_view akey;
          if (arg.unescaped_key().get(akey)) continue;
          od::value av;
          if (arg.value().get(av)) continue;
          auto whole = [&](int64_t& out, int64_t lo, const char* what) {
            if (auto n = wholeNumber(av, lo, kMax)) out = *n;
            else note(fmt::format("args.{}", akey), av, what);
          };
          if (akey == "Bytes") {
            whole(mem.bytes, kMin + 1, "a whole number of bytes within 64 bits");
          } else if (akey == "Addr") {
            if (auto a = address(av)) mem.addr = *a;
            else note("args.Addr", av, "an address (a whole number from 0 to 2^64-1)");
          } else if (akey == "Device Id") {
            whole(mem.device_id, kMin, "a device number");
          } else if (akey == "Device Type") {
            whole(mem.device_type, kMin, "a device type number");
          } else if (akey == "Total Allocated") {
            whole(mem.total_allocated, 0, "a whole number of bytes from 0 to 2^63-1");
          } else if (akey == "Total Reserved") {
            whole(mem.total_reserved, 0, "a whole number of bytes from 0 to 2^63-1");
          }
        }
      }
    }
    if (name == "[memory]" || name == "[OutOfMemory]") {
      if (!has_args) return Error{fmt::format("traceEvents[{}]: a {} event without args", index, name)};
      if (!bad.empty()) return Error{fmt::format("traceEvents[{}] ({}): {}", index, name, bad)};
      mem.ts_us = ts;
      mem.oom = name == "[OutOfMemory]";
      memory_.push_back(mem);
    } else if (ph == "X" && cat == "user_annotation") {
      if (!bad.empty()) return Error{fmt::format("traceEvents[{}] (annotation '{}'): {}", index, name.substr(0, 80), bad)};
      ranges_.push_back(RangeRecord{std::string(name.substr(0, 4096)), ts, dur});
    }
    return Ok{};
  }

  void readDeviceProperties(od::value value) {
    od::array devices;
    if (value.get_array().get(devices)) return;
    for (auto d : devices) {
      od::object obj;
      if (d.get_object().get(obj)) continue;
      int64_t id = -1, total = 0;
      std::string dev_name;
      for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key)) continue;
        od::value v;
        if (field.value().get(v)) continue;
        if (key == "id") id = wholeNumber(v, -1, std::numeric_limits<int64_t>::max()).value_or(-1);
        else if (key == "totalGlobalMem") total = wholeNumber(v, 0, std::numeric_limits<int64_t>::max()).value_or(0);
        else if (key == "name") {
          std::string_view s;
          if (!v.get_string().get(s)) dev_name = std::string(s);
        }
      }
      if (id >= 0 && id <= std::numeric_limits<DeviceId>::max()) {
        auto& info = trace_.deviceInfo(static_cast<DeviceId>(id));
        info.name = dev_name;
        info.total_bytes = total;
      }
    }
  }

  Status build() {
    std::stable_sort(memory_.begin(), memory_.end(),
                     [](const MemoryRecord& a, const MemoryRecord& b) { return a.ts_us < b.ts_us; });
    double t0 = std::numeric_limits<double>::infinity();
    for (const auto& m : memory_) t0 = std::min(t0, m.ts_us);
    for (const auto& r : ranges_) t0 = std::min(t0, r.ts_us);
    if (!std::isfinite(t0)) t0 = 0;
    auto toNs = [&](double us) { return static_cast<int64_t>(std::llround((us - t0) * 1000.0)); };
    // Every time becomes nanoseconds since the first one, which must fit in 64 bits.
    auto fits = [&](double us) { return std::fabs((us - t0) * 1000.0) < 9.2e18; };
    for (const auto& m : memory_)
      if (!fits(m.ts_us)) return Error{fmt::format("a memory event at ts {} lies too far from the first ({})", m.ts_us, t0)};
    for (const auto& r : ranges_)
      if (!fits(r.ts_us) || !fits(r.ts_us + r.dur_us))
        return Error{fmt::format("the range '{}' (ts {}, dur {}) lies too far from the first event ({})", r.name, r.ts_us,
                                 r.dur_us, t0)};
    trace_.meta["t0_trace_us"] = fmt::format("{:.3f}", t0);

    std::map<DeviceId, size_t> allocated_counter, reserved_counter;
    auto counterFor = [&](std::map<DeviceId, size_t>& index, DeviceId device, const char* counter_name) -> Counter& {
      auto it = index.find(device);
      if (it == index.end()) {
        trace_.counters.push_back(Counter{device, counter_name, {}, {}});
        it = index.emplace(device, trace_.counters.size() - 1).first;
      }
      return trace_.counters[it->second];
    };

    size_t skipped = 0;
    trace_.events.reserve(memory_.size());
    for (const auto& m : memory_) {
      DeviceId device;
      if (m.device_type == kDeviceTypeCuda && m.device_id >= 0 && m.device_id <= std::numeric_limits<DeviceId>::max()) {
        device = static_cast<DeviceId>(m.device_id);
      } else if (m.device_type == kDeviceTypeCpu) {
        device = kCpuDevice;
      } else {
        ++skipped;
        continue;
      }
      Event e;
      e.t_ns = toNs(m.ts_us);
      e.device = device;
      e.source = Source::Allocator;
      if (m.oom) {
        e.action = Action::Oom;
        e.size = m.bytes;
      } else {
        e.action = m.bytes >= 0 ? Action::Alloc : Action::FreeCompleted;
        e.size = m.bytes >= 0 ? m.bytes : wrappingSub(0, m.bytes);
        e.addr = m.addr;
      }
      const uint64_t index = trace_.events.size();
      auto& info = trace_.deviceInfo(device);
      if (!seen_device_[device]) {
        seen_device_[device] = true;
        if (m.total_allocated >= 0) info.baseline_allocated = wrappingSub(m.total_allocated, m.oom ? 0 : m.bytes);
      }
      trace_.events.push(e);
      if (m.total_allocated >= 0) {
        auto& c = counterFor(allocated_counter, device, "allocated");
        c.after_event.push_back(index);
        c.value.push_back(m.total_allocated);
      }
      if (m.total_reserved >= 0) {
        auto& c = counterFor(reserved_counter, device, "reserved");
        c.after_event.push_back(index);
        c.value.push_back(m.total_reserved);
      }
    }
    if (skipped) trace_.meta["warnings"] = fmt::format("skipped {} memory events of devices other than CPU and CUDA", skipped);
    for (auto& c : trace_.counters)
      if (c.name == "reserved" && !c.value.empty()) trace_.deviceInfo(c.device).baseline_reserved = c.value.front();

    for (const auto& r : ranges_)
      trace_.phases.push_back(Phase{r.name, PhaseKind::Annotation, kAllDevices, kNoRun, toNs(r.ts_us), toNs(r.ts_us + r.dur_us)});
    std::stable_sort(trace_.phases.begin(), trace_.phases.end(),
                     [](const Phase& a, const Phase& b) { return a.begin_ns < b.begin_ns; });
    assignPhases(trace_);
    return Ok{};
  }

  Progress* progress_;
  ReadBudget& budget_;
  uint64_t charged_ = 0;
  Trace trace_;
  std::vector<MemoryRecord> memory_;
  std::vector<RangeRecord> ranges_;
  std::map<DeviceId, bool> seen_device_;
  std::string name_storage_, ph_storage_, cat_storage_;
  size_t total_ = 0;
  const char* base_ = nullptr;
  od::document* doc_ = nullptr;
};

}  // namespace

Result<Trace> importProfilerTrace(std::string_view json, Progress* progress, ReadBudget* budget, size_t capacity) {
  ReadBudget local;
  ReadBudget& b = budget ? *budget : local;
  if (capacity < json.size() + simdjson::SIMDJSON_PADDING) {
    if (!b.take(json.size() + simdjson::SIMDJSON_PADDING)) return b.memoryError("a padded copy of the JSON");
    std::string padded;
    padded.reserve(json.size() + simdjson::SIMDJSON_PADDING);
    padded = json;
    return ProfilerTraceReader(progress, b).read(padded.data(), padded.size(), padded.capacity());
  }
  return ProfilerTraceReader(progress, b).read(json.data(), json.size(), capacity);
}

Result<Trace> importProfilerTrace(const std::string& json, Progress* progress) {
  return importProfilerTrace(std::string_view(json), progress, nullptr, json.capacity());
}

}  // namespace sawtooth
