#include "core/io/trace_loader.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <new>

#include <fmt/format.h>

#include "core/io/file_bytes.h"
#include "core/io/jax_profile_importer.h"
#include "core/io/memory_timeline_importer.h"
#include "core/io/mapped_file.h"
#include "core/io/native_event_reader.h"
#include "core/io/native_format.h"
#include "core/io/profiler_trace_importer.h"
#include "core/io/snapshot_decoder.h"
#include "core/model/trace_checks.h"
#include "core/util/format_bytes.h"

namespace sawtooth {
namespace {

std::string hexPrefix(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < std::min<size_t>(bytes.size(), 4); ++i)
    out += fmt::format("{}{:02x}", i ? " " : "", static_cast<uint8_t>(bytes[i]));
  return out;
}

Error withFile(const std::string& label, const Error& e) { return Error{fmt::format("{}: {}", label, e.message)}; }

Error notATrace(const std::string& label, std::string_view bytes) {
  if (bytes.empty()) return Error{fmt::format("{}: the file is empty", label)};
  return Error{fmt::format("{}: not a PyTorch memory snapshot (.pickle), a torch.profiler trace or memory timeline "
                           "(.json), a JAX memory profile or a .sawtooth file (it starts with bytes {})",
                           label, hexPrefix(bytes))};
}

// The value checks every trace passes, and its anomalies counted (trace_checks.h).
Result<Trace> checked(Result<Trace> trace, const std::string& label, ReadBudget& budget) {
  if (!trace) return trace;
  // Readers that can multiply check as they go; this holds every format to the same bound.
  if (Status st = budget.withinAmplification(trace->events.size(), "events"); !st) return withFile(label, st.error());
  if (Status st = budget.withinAmplification(trace->stacks.stackFrameCount(), "stack frames"); !st)
    return withFile(label, st.error());
  settleBaselines(*trace);
  const auto max_size = static_cast<int64_t>(std::min<uint64_t>(budget.limits().max_size, INT64_MAX));
  if (Status st = checkTraceValues(*trace, max_size, raiseHint("size")); !st) return withFile(label, st.error());
  if (Status st = countAnomalies(*trace, budget.limit() > budget.used() ? budget.limit() - budget.used() : 0); !st)
    return withFile(label, st.error());
  return trace;
}

// `capacity`: readable bytes from bytes.data() (a std::string's padding), 0 when unknown.
Result<Trace> fromBytes(std::shared_ptr<const void> owner, std::string_view bytes, size_t capacity,
                        const std::string& label, Progress* progress, ReadBudget& budget,
                        const ConsumedFn& consumed = {}) {
  budget.setInputBytes(bytes.size());  // the amplification limit's measure
  switch (detectFormat(bytes)) {
    case TraceFormat::PytorchSnapshot: {
      auto trace = readSnapshot(std::move(owner), bytes, budget, progress, nullptr, consumed);
      if (!trace) return withFile(label, trace.error());
      return checked(std::move(trace), label, budget);
    }
    case TraceFormat::ProfilerTrace: {
      auto trace = importProfilerTrace(bytes, progress, &budget, capacity);
      if (!trace) return withFile(label, trace.error());
      return checked(std::move(trace), label, budget);
    }
    // These two importers read a std::string (simdjson's padding, protobuf's views): a copy.
    case TraceFormat::MemoryTimeline: {
      auto trace = importMemoryTimeline(std::string(bytes), progress, &budget);
      if (!trace) return withFile(label, trace.error());
      return checked(std::move(trace), label, budget);
    }
    case TraceFormat::JaxMemoryProfile: {
      auto trace = importJaxMemoryProfile(std::string(bytes), label, progress, &budget);
      if (!trace) return withFile(label, trace.error());
      return checked(std::move(trace), label, budget);
    }
    case TraceFormat::Html:
      return withFile(label, htmlRefusal(bytes));
    case TraceFormat::Native:
      return Error{fmt::format("{}: a .sawtooth file must be opened from disk", label)};
    case TraceFormat::Unknown:
      break;
  }
  return notATrace(label, bytes);
}

// The system refused an allocation the budget allowed (ulimit -v, other processes): what the
// reader had counted at most says how far it got (what it held at the moment may be less: a
// structure it was growing had been handed back).
Error outOfMemory(const std::string& label, const ReadBudget& budget) {
  return Error{fmt::format("{}: ran out of memory while reading it, with {} counted at most against the memory limit of "
                           "{} (the system refused more; {})",
                           label, formatBytes(static_cast<int64_t>(std::min<uint64_t>(budget.peak(), INT64_MAX))),
                           formatBytes(static_cast<int64_t>(std::min<uint64_t>(budget.limit(), INT64_MAX))),
                           raiseHint("memory"))};
}

Result<Trace> load(const std::string& path, Progress* progress, ReadBudget& budget) {
  char head[16] = {};
  size_t n = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
  }
  const std::string_view start(head, n);
  const TraceFormat format = detectFormat(start);
  if (format == TraceFormat::Native) return checked(readNative(path, progress, budget, EventReadOptions{}), path, budget);
  // An uncompressed pickle is parsed where it lies in the page cache: no copy of the file.
  if (format == TraceFormat::PytorchSnapshot && !isGzip(start)) {
    if (auto mapped = MappedFile::open(path)) {
      auto owner = std::make_shared<const MappedFile>(std::move(*mapped));
      const std::string_view bytes = owner->bytes();
      const MappedFile* file = owner.get();
      return fromBytes(std::move(owner), bytes, 0, path, progress, budget,
                       [file](size_t offset) { file->releaseBefore(offset); });
    }
  }
  // Reading and decompressing take the first fifth of the progress bar, parsing the rest.
  Progress reading = progress ? progress->sub(0, 200) : Progress();
  auto checkHead = [](std::string_view first) -> Status {
    if (detectFormat(first) == TraceFormat::Unknown || detectFormat(first) == TraceFormat::Native)
      return Error{fmt::format("it is gzip-compressed, but what it holds is not a PyTorch memory snapshot, a "
                               "torch.profiler trace or memory timeline or a JAX memory profile (it starts with bytes {})",
                               hexPrefix(first))};
    return Ok{};
  };
  auto bytes = readMaybeGzip(path, progress ? &reading : nullptr, &budget, checkHead);
  if (!bytes) return bytes.error();
  Progress parsing = progress ? progress->sub(200, 1000) : Progress();
  auto owner = std::make_shared<const std::string>(std::move(*bytes));
  const std::string_view view = *owner;
  const size_t capacity = owner->capacity();
  return fromBytes(std::move(owner), view, capacity, path, progress ? &parsing : nullptr, budget);
}

}  // namespace

bool isNativeFile(const std::string& path) {
  char head[16] = {};
  size_t n = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
  }
  return detectFormat(std::string_view(head, n)) == TraceFormat::Native;
}

TraceFormat detectFormat(std::string_view bytes) {
  if (bytes.substr(0, native::kSqliteMagic.size()) == native::kSqliteMagic) return TraceFormat::Native;
  if (!bytes.empty() && static_cast<uint8_t>(bytes[0]) == 0x80) return TraceFormat::PytorchSnapshot;
  if (looksLikePprof(bytes)) return TraceFormat::JaxMemoryProfile;
  if (looksLikeMemoryTimeline(bytes)) return TraceFormat::MemoryTimeline;
  if (looksLikeHtml(bytes)) return TraceFormat::Html;
  for (char c : bytes) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == '{' || c == '[') return TraceFormat::ProfilerTrace;
    // Protocol 0/1 pickles start with a MARK or a container opcode, and end with STOP.
    if (c == '(' || c == '}' || c == ']' || c == 'd' || c == 'l') return TraceFormat::PytorchSnapshot;
    break;
  }
  if (!bytes.empty() && bytes.back() == '.') return TraceFormat::PytorchSnapshot;
  return TraceFormat::Unknown;
}

Result<Trace> loadTraceFromBytes(std::string bytes, const std::string& label, Progress* progress,
                                 const ReadLimits& limits) {
  ReadBudget budget(limits);
  try {
    auto owner = std::make_shared<const std::string>(std::move(bytes));
    const std::string_view view = *owner;
    const size_t capacity = owner->capacity();
    return fromBytes(std::move(owner), view, capacity, label, progress, budget);
  } catch (const std::bad_alloc&) {
    return outOfMemory(label, budget);
  }
}

Result<Trace> loadTrace(const std::string& path, Progress* progress, const ReadLimits& limits) {
  ReadBudget budget(limits);
  // The budget keeps every reader under the limit; this is the net under it, for an allocation
  // the budget did not foresee: an error value, never an abort.
  try {
    return load(path, progress, budget);
  } catch (const std::bad_alloc&) {
    return outOfMemory(path, budget);
  }
}

}  // namespace sawtooth
