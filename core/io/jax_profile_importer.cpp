#include "core/io/jax_profile_importer.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/io/file_bytes.h"
#include "core/io/protobuf_wire.h"
#include "core/util/format_bytes.h"
#include "core/util/keyed_hash.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

using protobuf::Field;
using protobuf::WireReader;
using protobuf::WireType;

// A hostile count could make one sample billions of events: 16 M buffers is far beyond any
// device's worth and still bounded (about 0.75 GB of events).
constexpr uint64_t kMaxBuffers = uint64_t{1} << 24;
constexpr size_t kMaxListedExecutables = 200;
constexpr size_t kMaxListedLabels = 50;
constexpr size_t kMaxSidecarBytes = 1 << 20;
constexpr size_t kMaxDevices = 1024;

// pprof's Profile (github.com/google/pprof, proto/profile.proto): the fields read here.
enum ProfileField : uint32_t { kSampleType = 1, kSample = 2, kLocation = 4, kFunction = 5, kStringTable = 6, kTimeNanos = 9, kComment = 13 };
enum SampleField : uint32_t { kLocationId = 1, kValue = 2, kLabel = 3 };
enum LabelField : uint32_t { kKey = 1, kStr = 2, kNum = 3, kNumUnit = 4 };
enum LocationField : uint32_t { kLocationIdField = 1, kLine = 4 };
enum LineField : uint32_t { kFunctionId = 1, kLineNumber = 2 };
enum FunctionField : uint32_t { kFunctionIdField = 1, kName = 2, kFilename = 4, kStartLine = 5 };
enum ValueTypeField : uint32_t { kType = 1, kUnit = 2 };

struct Label {
  uint64_t key = 0, str = 0, num_unit = 0;
  int64_t num = 0;
};

struct Sample {
  std::vector<uint64_t> locations, values;
  std::vector<Label> labels;
};

struct Line {
  uint64_t function = 0;
  int64_t line = 0;
};

struct Function {
  uint64_t name = 0, filename = 0;
};

// What each structure the reader keeps costs, beyond what it holds (map nodes, vector headers).
constexpr uint64_t kSampleBytes = sizeof(Sample) + 16, kNodeBytes = 64, kLabelKeyBytes = 64;
// A label's text counted for the run's list: enough for any key=value JAX writes.
constexpr size_t kMaxLabelText = 256;
constexpr size_t kMaxCommentText = 64 << 10;
constexpr size_t kMaxWarnings = 20;

class ProfileReader {
 public:
  ProfileReader(Progress* progress, ReadBudget& budget) : progress_(progress), budget_(budget), charge_(budget) {}

  Result<Trace> read(const std::string& bytes) {
    trace_.format = "jax-memory-profile";
    budget_.setInputBytes(bytes.size());
    if (Status st = readProfile(bytes); !st) return st.error();
    if (strings_.empty() || !strings_[0].empty()) warn("the string table does not start with \"\" as pprof requires");
    const auto space = sampleTypeIndex("space", "bytes");
    if (!space)
      return Error{"a pprof profile without a (space, bytes) sample type: not a JAX device memory profile "
                   "(jax.profiler.save_device_memory_profile)"};
    const auto count = sampleTypeIndex("allocations", "count");
    Run run;
    run.name = "jax memory profile";
    run.workload = "jax-memory-profile";
    run.config.emplace_back("source", "jax.profiler.save_device_memory_profile");
    trace_.runs.push_back(std::move(run));
    for (size_t i = 0; i < samples_.size(); ++i) {
      if (Status st = addSample(i, *space, count); !st) return st.error();
      if (progress_ && i % 1024 == 0) {
        if (progress_->cancelled()) return Error{"cancelled"};
        progress_->report(i, samples_.size());
      }
    }
    finishRun();
    trace_.meta["jax.snapshot"] =
        "every buffer alive when the profile was saved, at time 0 (a pprof profile holds no times or addresses)";
    if (!warnings_.empty()) trace_.meta["warnings"] = warnings_;
    return std::move(trace_);
  }

 private:
  // Each warning once, and a few kinds at most (a file can make one per sample).
  void warn(const std::string& w) {
    if (warned_.count(w)) return;
    if (warned_.size() >= kMaxWarnings) {
      if (warned_.insert("…").second) warnings_ += "; and other warnings";
      return;
    }
    warned_.insert(w);
    warnings_ += (warnings_.empty() ? "" : "; ") + w;
  }

  // Counts `bytes` more of what the reader holds (samples, locations, functions, strings, labels,
  // the stacks it builds) against the memory limit, a megabyte at a time.
  Status hold(uint64_t bytes, std::string_view what) {
    held_ += bytes;
    if (held_ - charged_ < (uint64_t{1} << 20)) return Ok{};
    if (!budget_.take(held_ - charged_)) return budget_.memoryError(what);
    charged_ = held_;
    return Ok{};
  }

  static Error wireError(const char* what, const WireReader& r) { return Error{fmt::format("{}: {}", what, r.error())}; }

  Status expect(const Field& f, WireType type, const char* what) {
    if (f.type == type) return Ok{};
    return Error{fmt::format("{}: field {} has wire type {}, expected {}", what, f.number, static_cast<int>(f.type),
                             static_cast<int>(type))};
  }

  Status readProfile(std::string_view bytes) {
    WireReader r(bytes);
    Field f;
    while (r.next(f)) {
      switch (f.number) {
        case kSampleType:
          if (Status st = expect(f, WireType::Bytes, "sample_type"); !st) return st;
          if (Status st = readValueType(f.bytes); !st) return st;
          break;
        case kSample:
          if (Status st = expect(f, WireType::Bytes, "sample"); !st) return st;
          if (Status st = readSample(f.bytes); !st) return st;
          break;
        case kLocation:
          if (Status st = expect(f, WireType::Bytes, "location"); !st) return st;
          if (Status st = readLocation(f.bytes); !st) return st;
          break;
        case kFunction:
          if (Status st = expect(f, WireType::Bytes, "function"); !st) return st;
          if (Status st = readFunction(f.bytes); !st) return st;
          break;
        case kStringTable:
          if (Status st = expect(f, WireType::Bytes, "string_table"); !st) return st;
          strings_.push_back(f.bytes);  // a view into the input, which is counted already
          if (Status st = hold(sizeof(std::string_view), "the string table"); !st) return st;
          break;
        case kTimeNanos:
          if (f.type == WireType::Varint) trace_.meta["pprof.time_nanos"] = std::to_string(protobuf::asInt64(f.value));
          break;
        case kComment: {
          const size_t before = comments_.capacity();
          if (!protobuf::appendVarints(f, comments_)) return Error{"comment: a malformed packed field"};
          if (Status st = hold((comments_.capacity() - before) * sizeof(uint64_t), "the comments"); !st) return st;
          break;
        }
        default:
          break;  // mappings, drop/keep frames, periods: nothing a memory view needs
      }
    }
    if (!r.error().empty()) return Error{fmt::format("not a readable pprof profile ({})", r.error())};
    return Ok{};
  }

  Status readValueType(std::string_view bytes) {
    WireReader r(bytes);
    Field f;
    std::pair<uint64_t, uint64_t> type{0, 0};
    while (r.next(f)) {
      if (f.type != WireType::Varint) continue;
      if (f.number == kType) type.first = f.value;
      else if (f.number == kUnit) type.second = f.value;
    }
    if (!r.error().empty()) return wireError("sample_type", r);
    sample_types_.push_back(type);
    return Ok{};
  }

  Status readSample(std::string_view bytes) {
    const size_t index = samples_.size();
    WireReader r(bytes);
    Field f;
    Sample s;
    while (r.next(f)) {
      if (f.number == kLocationId) {
        if (!protobuf::appendVarints(f, s.locations)) return Error{fmt::format("sample {}: malformed location ids", index)};
      } else if (f.number == kValue) {
        if (!protobuf::appendVarints(f, s.values)) return Error{fmt::format("sample {}: malformed values", index)};
      } else if (f.number == kLabel && f.type == WireType::Bytes) {
        WireReader lr(f.bytes);
        Field lf;
        Label label;
        while (lr.next(lf)) {
          if (lf.type != WireType::Varint) continue;
          if (lf.number == kKey) label.key = lf.value;
          else if (lf.number == kStr) label.str = lf.value;
          else if (lf.number == kNum) label.num = protobuf::asInt64(lf.value);
          else if (lf.number == kNumUnit) label.num_unit = lf.value;
        }
        if (!lr.error().empty()) return Error{fmt::format("sample {} label: {}", index, lr.error())};
        s.labels.push_back(label);
      }
    }
    if (!r.error().empty()) return Error{fmt::format("sample {}: {}", index, r.error())};
    const uint64_t cost = kSampleBytes + s.locations.capacity() * sizeof(uint64_t) +
                          s.values.capacity() * sizeof(uint64_t) + s.labels.capacity() * sizeof(Label);
    samples_.push_back(std::move(s));
    if (Status st = hold(cost, "the samples"); !st) return Error{fmt::format("sample {}: {}", index, st.error().message)};
    return Ok{};
  }

  Status readLocation(std::string_view bytes) {
    WireReader r(bytes);
    Field f;
    uint64_t id = 0;
    std::vector<Line> lines;
    while (r.next(f)) {
      if (f.number == kLocationIdField && f.type == WireType::Varint) {
        id = f.value;
      } else if (f.number == kLine && f.type == WireType::Bytes) {
        WireReader lr(f.bytes);
        Field lf;
        Line line;
        while (lr.next(lf)) {
          if (lf.type != WireType::Varint) continue;
          if (lf.number == kFunctionId) line.function = lf.value;
          else if (lf.number == kLineNumber) line.line = protobuf::asInt64(lf.value);
        }
        if (!lr.error().empty()) return wireError("location line", lr);
        lines.push_back(line);
      }
    }
    if (!r.error().empty()) return wireError("location", r);
    const uint64_t cost = kNodeBytes + lines.capacity() * sizeof(Line);
    locations_[id] = std::move(lines);
    return hold(cost, "the locations");
  }

  Status readFunction(std::string_view bytes) {
    WireReader r(bytes);
    Field f;
    uint64_t id = 0;
    Function fn;
    while (r.next(f)) {
      if (f.type != WireType::Varint) continue;
      if (f.number == kFunctionIdField) id = f.value;
      else if (f.number == kName) fn.name = f.value;
      else if (f.number == kFilename) fn.filename = f.value;
    }
    if (!r.error().empty()) return wireError("function", r);
    functions_[id] = fn;
    return hold(kNodeBytes, "the functions");
  }

  std::string_view str(uint64_t index) {
    if (index < strings_.size()) return strings_[index];
    warn("string indices beyond the string table (shown as \"?\")");
    return "?";
  }

  std::optional<size_t> sampleTypeIndex(std::string_view type, std::string_view unit) {
    for (size_t i = 0; i < sample_types_.size(); ++i)
      if (str(sample_types_[i].first) == type && str(sample_types_[i].second) == unit) return i;
    return std::nullopt;
  }

  // cuda:N / gpu:N / rocm:N are device N; cpu:0 is the CPU; anything else gets a device of its
  // own, labelled with JAX's name for it.
  DeviceId deviceFor(std::string_view name) {
    auto it = devices_.find(std::string(name));
    if (it != devices_.end()) return it->second;
    DeviceId id = 0;
    const size_t colon = name.find(':');
    const std::string_view platform = name.substr(0, colon);
    int64_t index = -1;
    if (colon != std::string_view::npos && colon + 1 < name.size() && name.size() - colon <= 5 &&
        std::all_of(name.begin() + static_cast<std::ptrdiff_t>(colon) + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      index = std::stoll(std::string(name.substr(colon + 1)));
    if ((platform == "cuda" || platform == "gpu" || platform == "rocm") && index >= 0 && index < 4096) {
      id = static_cast<DeviceId>(index);
    } else if (platform == "cpu" && index == 0) {
      id = kCpuDevice;
    } else {
      if (devices_.size() >= kMaxDevices) return kCpuDevice;  // reported by addSample
      id = next_labelled_device_++;
      trace_.deviceInfo(id).label = std::string(name);
    }
    devices_.emplace(std::string(name), id);
    device_order_.emplace_back(std::string(name), id);
    return id;
  }

  // A location's frames, interned the first time a sample lists it.
  Status framesOf(uint64_t location, const std::vector<Line>& lines, const std::vector<uint32_t>*& out) {
    auto [it, added] = location_frames_.try_emplace(location);
    out = &it->second;
    if (!added) return Ok{};
    it->second.reserve(lines.size());
    for (const Line& line : lines) {
      const auto fn = functions_.find(line.function);
      if (fn == functions_.end()) it->second.push_back(trace_.stacks.internFrame("?", "", line.line));
      else it->second.push_back(trace_.stacks.internFrame(str(fn->second.name), str(fn->second.filename), line.line));
    }
    return hold(kNodeBytes + lines.size() * sizeof(uint32_t), "the locations' frames");
  }

  // The sample's stack: every line of every location it lists. A location of thousands of lines
  // listed thousands of times is a stack of millions of frames from a few bytes: the frames of
  // all stacks built are held to the amplification limit, and their memory to the budget.
  Status stackOf(const Sample& s, uint32_t& stack) {
    frame_ids_.clear();
    size_t counted = frame_ids_.capacity();  // what the reader has counted of frame_ids_ so far
    const size_t table_before = trace_.stacks.bytesResident();
    for (uint64_t location : s.locations) {
      auto it = locations_.find(location);
      if (it == locations_.end()) {
        warn("location ids missing from the location table (their frames are left out)");
        continue;
      }
      if (Status st = budget_.withinAmplification(trace_.stacks.stackFrameCount() + frame_ids_.size() + it->second.size(),
                                                  "stack frames");
          !st)
        return st;
      const std::vector<uint32_t>* frames = nullptr;
      if (Status st = framesOf(location, it->second, frames); !st) return st;
      frame_ids_.insert(frame_ids_.end(), frames->begin(), frames->end());
      if (frame_ids_.capacity() > counted) {
        if (Status st = hold((frame_ids_.capacity() - counted) * sizeof(uint32_t), "a sample's stack"); !st) return st;
        counted = frame_ids_.capacity();
      }
    }
    stack = frame_ids_.empty() ? kNoStack : trace_.stacks.internStack(frame_ids_);
    // The table grows by the new stack, frames and strings (never shrinks).
    return hold(trace_.stacks.bytesResident() - table_before, "the stacks");
  }

  // Where an executable was compiled from: its first frame outside JAX's own sources.
  std::string callerOf(uint32_t stack) {
    if (stack == kNoStack) return "no stack";
    const auto frames = trace_.stacks.stack(stack);
    FrameView chosen = trace_.stacks.frame(frames.front());
    for (uint32_t id : frames) {
      const FrameView frame = trace_.stacks.frame(id);
      if (frame.file.find("/jax/") == std::string_view::npos && frame.file.find("/jaxlib/") == std::string_view::npos) {
        chosen = frame;
        break;
      }
    }
    return fmt::format("{} ({}:{})", chosen.name, chosen.file, chosen.line);
  }

  Status addSample(size_t index, size_t space, std::optional<size_t> count_index) {
    const Sample& s = samples_[index];
    if (s.values.size() != sample_types_.size())
      return Error{fmt::format("sample {} has {} values for {} sample types", index, s.values.size(), sample_types_.size())};
    const int64_t bytes = protobuf::asInt64(s.values[space]);
    const int64_t count = count_index ? protobuf::asInt64(s.values[*count_index]) : 1;
    if (bytes < 0 || count < 0) return Error{fmt::format("sample {}: negative count {} or bytes {}", index, count, bytes)};
    std::string kind, device;
    for (const Label& l : s.labels) {
      // Views and prefixes only: one long string listed by many labels is read once.
      const std::string_view key = str(l.key);
      const std::string number = l.str ? std::string() : std::to_string(l.num);
      const std::string_view text = l.str ? str(l.str) : std::string_view(number);
      if (text.size() > kMaxLabelText && (key == "kind" || key == "device"))
        return Error{fmt::format("sample {}: a '{}' label of {} bytes (JAX writes a few)", index, key.substr(0, 16),
                                 text.size())};
      if (key == "kind") kind = text;
      else if (key == "device") device = text;
      const std::string_view unit = l.num_unit ? str(l.num_unit) : std::string_view();
      auto [it, added] = label_counts_.try_emplace(
          fmt::format("{}={}{}", key.substr(0, kMaxLabelText), text.substr(0, kMaxLabelText), unit.substr(0, kMaxLabelText)),
          0);
      ++it->second;
      if (added)
        if (Status st = hold(kLabelKeyBytes + it->first.size(), "the labels"); !st)
          return Error{fmt::format("sample {}: {}", index, st.error().message)};
    }
    uint32_t stack = kNoStack;
    if (Status st = stackOf(s, stack); !st) return Error{fmt::format("sample {}: {}", index, st.error().message)};
    if (kind == "executable") {
      ++executables_;
      executable_bytes_ = wrappingAdd(executable_bytes_, bytes);
      if (executables_ <= kMaxListedExecutables)
        trace_.runs[0].config.emplace_back(
            fmt::format("executable {:03}", executables_),
            fmt::format("{} of generated code{} · {}", formatBytes(bytes), count > 1 ? fmt::format(" (×{})", count) : "",
                        callerOf(stack)));
      return Ok{};
    }
    if (kind != "buffer") warn(kind.empty() ? "samples without a kind label (read as buffers)"
                                            : fmt::format("samples of kind '{}' (read as buffers)", kind));
    if (device.empty()) {
      warn("buffers without a device label (on the device labelled 'no device label')");
      device = "no device label";
    }
    if (count == 0 && bytes > 0) warn("samples of bytes with a count of 0 (read as one buffer)");
    const uint64_t buffers = count == 0 ? (bytes > 0 ? 1 : 0) : static_cast<uint64_t>(count);
    if (buffers > kMaxBuffers - total_buffers_)
      return Error{fmt::format("sample {}: more than {} buffers in one profile", index, kMaxBuffers)};
    total_buffers_ += buffers;
    if (buffers && bytes % static_cast<int64_t>(buffers) != 0)
      warn("samples whose bytes are not a whole multiple of their count (the remainder goes to the last buffer)");
    if (devices_.size() >= kMaxDevices && !devices_.count(device))
      return Error{fmt::format("sample {}: more than {} devices in one profile", index, kMaxDevices)};
    const DeviceId id = deviceFor(device);
    auto& totals = live_[id];
    totals.first = wrappingAdd(totals.first, bytes);
    totals.second += static_cast<int64_t>(buffers);
    Event e;
    e.device = id;
    e.source = Source::Allocator;
    e.action = Action::Alloc;
    e.stack = stack;
    e.run = 0;
    for (uint64_t b = 0; b < buffers; ++b) {
      // One sample of a few bytes may stand for millions of buffers: each is a row, counted.
      if (Status st = charge_.admit(trace_.events.size()); !st) return Error{fmt::format("sample {}: {}", index, st.error().message)};
      e.size = bytes / static_cast<int64_t>(buffers) + (b + 1 == buffers ? bytes % static_cast<int64_t>(buffers) : 0);
      trace_.events.push(e);
    }
    return Ok{};
  }

  void finishRun() {
    Run& run = trace_.runs[0];
    if (executables_ > kMaxListedExecutables)
      run.config.emplace_back("executables not listed", std::to_string(executables_ - kMaxListedExecutables));
    std::string labels;
    size_t listed = 0;
    for (const auto& [label, n] : label_counts_) {
      if (listed++ == kMaxListedLabels) {
        labels += fmt::format(", … {} more", label_counts_.size() - kMaxListedLabels);
        break;
      }
      labels += fmt::format("{}{} ×{}", labels.empty() ? "" : ", ", label, n);
    }
    if (!labels.empty()) run.config.emplace_back("labels (samples carrying each)", labels);
    std::string devices;
    for (const auto& [name, id] : device_order_) devices += (devices.empty() ? "" : ", ") + name;
    run.config.emplace_back("devices", devices.empty() ? "none" : devices);
    for (const auto& [name, id] : device_order_) {
      const auto& [bytes, buffers] = live_[id];
      run.measurements.push_back({"live_bytes " + name, static_cast<double>(bytes), "bytes"});
      run.measurements.push_back({"live_buffers " + name, static_cast<double>(buffers), ""});
    }
    run.measurements.push_back({"executables", static_cast<double>(executables_), ""});
    run.measurements.push_back({"executable_code_bytes", static_cast<double>(executable_bytes_), "bytes"});
    if (!comments_.empty()) {
      // Indices into the string table: a file can list one long string a million times.
      std::string text;
      for (size_t i = 0; i < comments_.size(); ++i) {
        if (text.size() >= kMaxCommentText) {
          text += fmt::format("\n… {} more", comments_.size() - i);
          break;
        }
        text += (text.empty() ? "" : "\n") + std::string(str(comments_[i]).substr(0, kMaxCommentText));
      }
      trace_.meta["pprof.comments"] = text;
    }
  }

  Progress* progress_;
  ReadBudget& budget_;
  EventCharge charge_;
  Trace trace_;
  std::string warnings_;
  std::set<std::string> warned_;
  std::vector<std::pair<uint64_t, uint64_t>> sample_types_;
  std::vector<Sample> samples_;
  // Ids chosen by the file: keyed (std::hash of an integer is the integer).
  std::unordered_map<uint64_t, std::vector<Line>, KeyedHash> locations_;
  std::unordered_map<uint64_t, Function, KeyedHash> functions_;
  std::unordered_map<uint64_t, std::vector<uint32_t>, KeyedHash> location_frames_;
  std::vector<std::string_view> strings_;
  std::vector<uint64_t> comments_;
  std::map<std::string, DeviceId> devices_;
  std::vector<std::pair<std::string, DeviceId>> device_order_;
  DeviceId next_labelled_device_ = 4096;
  std::map<DeviceId, std::pair<int64_t, int64_t>> live_;  // bytes, buffers
  std::map<std::string, size_t> label_counts_;
  std::vector<uint32_t> frame_ids_;
  uint64_t held_ = 0, charged_ = 0;
  size_t executables_ = 0;
  int64_t executable_bytes_ = 0;
  uint64_t total_buffers_ = 0;
};

}  // namespace

bool looksLikePprof(std::string_view bytes) {
  // Field 1, wire type 2 (0x0a), a short length, then a ValueType starting with field 1 or 2 as a
  // varint (0x08 / 0x10).
  if (bytes.size() < 4 || static_cast<uint8_t>(bytes[0]) != 0x0a) return false;
  const auto length = static_cast<uint8_t>(bytes[1]);
  if (length & 0x80 || length < 2 || static_cast<size_t>(length) + 2 > bytes.size()) return false;
  const auto inner = static_cast<uint8_t>(bytes[2]);
  return inner == 0x08 || inner == 0x10;
}

std::string jaxMemoryAnalysisPath(const std::string& profile_path) {
  std::string stem = profile_path;
  auto strip = [&](std::string_view suffix) {
    if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0)
      stem.resize(stem.size() - suffix.size());
  };
  strip(".gz");
  const size_t slash = stem.find_last_of('/');
  const size_t dot = stem.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1)) stem.resize(dot);
  return stem + ".memory_analysis.json";
}

Status addJaxMemoryAnalysis(Trace& trace, const std::string& json) {
  if (trace.runs.empty()) return Error{"no run to add the memory analysis to"};
  const auto doc = nlohmann::json::parse(json, nullptr, false);
  if (!doc.is_object()) return Error{"not a JSON object"};
  const std::pair<const char*, const char*> figures[] = {
      {"argument_size_in_bytes", "jax_plan_argument_bytes"}, {"output_size_in_bytes", "jax_plan_output_bytes"},
      {"alias_size_in_bytes", "jax_plan_alias_bytes"},       {"temp_size_in_bytes", "jax_plan_temp_bytes"},
      {"generated_code_size_in_bytes", "jax_plan_generated_code_bytes"}};
  std::vector<Measurement> measurements;
  std::map<std::string, int64_t> got;
  for (const auto& [key, name] : figures) {
    const auto it = doc.find(key);
    if (it == doc.end()) continue;
    if (!it->is_number_unsigned()) return Error{fmt::format("{} is not a whole number of bytes", key)};
    const auto value = it->get<uint64_t>();
    if (value > (uint64_t{1} << 60)) return Error{fmt::format("{} is {}: more bytes than any device has", key, value)};
    got[name] = static_cast<int64_t>(value);
    measurements.push_back({name, static_cast<double>(value), "bytes"});
  }
  for (const auto& [key, name] : figures)
    if (!got.count(name) && std::string_view(key) != "generated_code_size_in_bytes")
      return Error{fmt::format("{} is missing", key)};
  measurements.push_back({"jax_plan_total_bytes",
                          static_cast<double>(got["jax_plan_argument_bytes"] + got["jax_plan_output_bytes"] +
                                              got["jax_plan_temp_bytes"] - got["jax_plan_alias_bytes"]),
                          "bytes"});
  Run& run = trace.runs[0];
  for (auto& m : measurements) run.measurements.push_back(std::move(m));
  for (const char* text : {"function", "device", "jax"})
    if (const auto it = doc.find(text); it != doc.end() && it->is_string())
      run.config.emplace_back(std::string("memory_analysis ") + text, it->get<std::string>());
  return Ok{};
}

Result<Trace> importJaxMemoryProfile(const std::string& bytes, const std::string& path, Progress* progress,
                                     ReadBudget* budget) {
  ReadBudget local;
  auto trace = ProfileReader(progress, budget ? *budget : local).read(bytes);
  if (!trace || path.empty()) return trace;
  const std::string sidecar = jaxMemoryAnalysisPath(path);
  std::error_code ec;
  if (sidecar == path || !std::filesystem::is_regular_file(sidecar, ec)) return trace;
  if (std::filesystem::file_size(sidecar, ec) > kMaxSidecarBytes || ec) {
    trace->meta["warnings"] += fmt::format("{}{}: larger than {} bytes, not read", trace->meta["warnings"].empty() ? "" : "; ",
                                           sidecar, kMaxSidecarBytes);
    return trace;
  }
  auto json = readFileBytes(sidecar);
  Status st = json ? addJaxMemoryAnalysis(*trace, *json) : Status(json.error());
  if (!st) {
    trace->meta["warnings"] += fmt::format("{}{}: {}", trace->meta["warnings"].empty() ? "" : "; ", sidecar, st.error().message);
  } else {
    trace->meta["jax.memory_analysis_file"] = sidecar;
  }
  return trace;
}

}  // namespace sawtooth
